package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.flink.JobGauges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming {@code INSERT INTO} through the governed catalog, checkpointed, in one statement set
 * writing three tables (fixed buckets, dynamic buckets, append) from one rate-limited source that
 * fails once mid-stream: after the restore from the last checkpoint every table holds each input row
 * exactly once (the append table shows no duplicate, the primary-key tables the last row per key),
 * and every governed writer and assigner gave its memory back.
 */
class FlinkSqlStreamingTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m");

    private static final int ROWS = Integer.getInteger("governance.test.flink-sql-stream-rows", 3_000);
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    @TempDir Path dir;

    /** Row {@code i} of the stream, the same on every replay. */
    static Row row(long i) {
        return Row.of((int) (i % 700), "s-" + i, String.valueOf((char) ('a' + i % 3)));
    }

    /** Fails the task once, at row {@code ROWS / 2}, after some checkpoints. */
    static final class FailOnce extends RichMapFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Row map(Row row) {
            if (row.getField(1).equals("s-" + ROWS / 2) && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("failing once on purpose");
            }
            return row;
        }
    }

    @Test
    void aCheckpointedStatementSetWritesEveryRowOnceThroughAFailure() throws Exception {
        SqlSession s = SqlSession.streaming(dir.resolve("wh"), 150);
        s.exec("CREATE TABLE fixed_t (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')");
        s.exec("CREATE TABLE dyn (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '100')");
        s.exec("CREATE TABLE log (k INT, v STRING, d STRING)");
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(
                FlinkSqlStreamingTest::row, ROWS, RateLimiterStrategy.perSecond(1_500), SqlSession.KVD);
        s.sql.createTemporaryView("src", s.sql.fromDataStream(
                s.env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows").setParallelism(1)
                        .map(new FailOnce()).returns(SqlSession.KVD).setParallelism(1)));

        FAILED.set(false);
        TableResult result = s.sql.executeSql("EXECUTE STATEMENT SET BEGIN "
                + "INSERT INTO fixed_t SELECT * FROM src; "
                + "INSERT INTO dyn SELECT * FROM src; "
                + "INSERT INTO log SELECT * FROM src; END");
        result.await();
        JobID job = result.getJobClient().orElseThrow().getJobID();

        assertThat(FAILED).as("the job failed once and recovered").isTrue();
        SqlSession read = SqlSession.batch(dir.resolve("wh"));
        List<Row> input = new ArrayList<>();
        for (long i = 0; i < ROWS; i++) {
            input.add(row(i));
        }
        assertThat(SqlRows.sorted(read.query("SELECT * FROM log"))).as("the append table: each row once").isEqualTo(SqlRows.all(List.of(input)));
        assertThat(SqlRows.sorted(read.query("SELECT * FROM fixed_t"))).isEqualTo(SqlRows.byKey(List.of(input), 0));
        assertThat(SqlRows.sorted(read.query("SELECT * FROM dyn"))).isEqualTo(SqlRows.byPartitionAndKey(List.of(input), 0));
        assertThat(JobGauges.of(REPORTER, job, "reservedBytes").values()).isNotEmpty().containsOnly(0L);
    }
}
