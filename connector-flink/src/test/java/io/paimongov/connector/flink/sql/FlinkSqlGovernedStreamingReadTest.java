package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.flink.JobGauges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming {@code SELECT} of a governed table runs governed reads in its slots: first the table's
 * snapshot (many overlapping sorted runs, merged in passes under a 2 MiB budget), then each later
 * snapshot's changes, as the changelog Paimon's source gives; cancelled, it leaves no spill file. And a streaming job that reads one
 * governed table into another and fails once mid-stream reads every row exactly once: the scan
 * position is checkpointed with the splits read. Expected contents come from the input rows alone
 * ({@link SqlRows}).
 */
class FlinkSqlGovernedStreamingReadTest {

    private static final int ROUNDS = 8;
    private static final long BUDGET = 2L << 20;
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    private static final Path FLINK_TMP = SqlCluster.tmpDir();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m", 4, FLINK_TMP);

    @TempDir Path dir;

    /** Round {@code i}: 600 rows over 1,000 keys, values of some 300 characters tagged {@code r<i>}. */
    private static List<Row> round(int i) {
        List<Row> rows = new ArrayList<>();
        for (Row r : SqlRows.random(100 + i, 600, 1_000, "r" + i)) {
            rows.add(Row.of(r.getField(0), r.getField(1) + "-" + "x".repeat(300), r.getField(2)));
        }
        return rows;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aStreamingScanReadsTheSnapshotInPassesThenEachLaterSnapshotsChanges() throws Exception {
        SqlSession batch = SqlSession.batch(dir.resolve("wh"));
        batch.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '1', 'write-only' = 'true', 'sink.parallelism' = '1')");
        List<List<Row>> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            rounds.add(insert(batch, "t", i));
        }

        SqlSession stream = SqlSession.streaming(dir.resolve("wh"), 200);
        TableResult result = stream.sql.executeSql("SELECT * FROM t /*+ OPTIONS('governance.memory.budget' = '" + BUDGET
                + "', 'continuous.discovery-interval' = '50ms') */");
        JobClient client = result.getJobClient().orElseThrow();
        Map<String, Row> table = new TreeMap<>();
        try (CloseableIterator<Row> it = result.collect()) {
            applyUntil(it, table, SqlRows.byPartitionAndKey(rounds, 0));
            rounds.add(insert(batch, "t", ROUNDS));
            applyUntil(it, table, SqlRows.byPartitionAndKey(rounds, 0));
        }
        awaitEnd(client);

        JobID job = client.getJobID();
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "budgetBytes").values()).as("the governed read operators' budgets")
                .isNotEmpty().containsOnly(BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "spillBytes").values()).as("the snapshot merged in passes").anyMatch(n -> n > 0);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "peakReservedBytes").values()).allMatch(peak -> peak > 0 && peak <= BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "reservedBytes").values()).containsOnly(0L);
        assertThat(JobGauges.scopesLeft(FLINK_TMP)).as("spill scopes left after the cancel").isEmpty();
    }

    /** Fails the task once, at the first row of round {@code ROUNDS + 1}'s. */
    static final class FailOnce extends RichMapFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Row map(Row row) {
            if (((String) row.getField(1)).startsWith("r" + (ROUNDS + 1) + "-") && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("failing once on purpose");
            }
            return row;
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aStreamingCopyThatFailsOnceReadsEveryRowExactlyOnce() throws Exception {
        SqlSession batch = SqlSession.batch(dir.resolve("wh"));
        batch.exec("CREATE TABLE src (k INT, v STRING, d STRING) PARTITIONED BY (d)");
        batch.exec("CREATE TABLE dst (k INT, v STRING, d STRING)");
        List<List<Row>> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            rounds.add(insert(batch, "src", i));
        }

        SqlSession stream = SqlSession.streaming(dir.resolve("wh"), 150);
        stream.sql.createTemporaryView("failing", stream.sql.fromDataStream(stream.sql.toDataStream(stream.sql.sqlQuery(
                        "SELECT * FROM src /*+ OPTIONS('governance.memory.budget' = '" + BUDGET + "', 'continuous.discovery-interval' = '50ms') */"))
                .map(new FailOnce()).returns(SqlSession.KVD)));
        FAILED.set(false);
        JobClient client = stream.sql.executeSql("INSERT INTO dst SELECT * FROM failing").getJobClient().orElseThrow();
        for (int i = ROUNDS; i < ROUNDS + 3; i++) {
            rounds.add(insert(batch, "src", i));
        }
        long expected = rounds.stream().mapToLong(List::size).sum();
        while (count(batch, "dst") < expected) {
            Thread.sleep(500);
        }
        client.cancel().get();
        awaitEnd(client);

        assertThat(FAILED).as("the job failed once and recovered").isTrue();
        assertThat(SqlRows.sorted(batch.query("SELECT * FROM dst"))).as("every row of src once").isEqualTo(SqlRows.all(rounds));
        assertThat(JobGauges.ofAnyOperator(REPORTER, client.getJobID(), "reservedBytes").values()).isNotEmpty().containsOnly(0L);
    }

    @Test
    void aStreamingScanRefusesCheckpointAlignmentNamingTheKey() {
        SqlSession batch = SqlSession.batch(dir.resolve("wh"));
        batch.exec("CREATE TABLE aligned (k INT, v STRING, d STRING)");
        SqlSession stream = SqlSession.streaming(dir.resolve("wh"), 200);
        assertThatThrownBy(() -> stream.sql.executeSql("SELECT * FROM aligned /*+ OPTIONS('source.checkpoint-align.enabled' = 'true') */"))
                .hasStackTraceContaining("'source.checkpoint-align.enabled' = 'true'")
                .hasStackTraceContaining("aligned");
    }

    private static List<Row> insert(SqlSession batch, String table, int i) {
        List<Row> rows = round(i);
        batch.view(table + "_round" + i, rows, SqlSession.KVD);
        batch.run("INSERT INTO " + table + " SELECT * FROM " + table + "_round" + i);
        return rows;
    }

    private static long count(SqlSession batch, String table) throws Exception {
        List<String> rows = batch.query("SELECT COUNT(*) FROM " + table);
        return Long.parseLong(rows.get(0).replaceAll("[^0-9]", ""));
    }

    /** Applies the changelog {@code it} to {@code table} (by partition and key) until its rows are {@code expected}. */
    private static void applyUntil(CloseableIterator<Row> it, Map<String, Row> table, List<String> expected) {
        while (!SqlRows.sorted(new ArrayList<>(table.values())).equals(expected)) {
            assertThat(it.hasNext()).as("the stream goes on").isTrue();
            Row change = it.next();
            String key = change.getField(2) + "/" + change.getField(0);
            if (change.getKind() == RowKind.INSERT || change.getKind() == RowKind.UPDATE_AFTER) {
                table.put(key, Row.of(change.getField(0), change.getField(1), change.getField(2)));
            } else {
                table.remove(key);
            }
        }
    }

    private static void awaitEnd(JobClient client) throws Exception {
        while (!client.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(100);
        }
        assertThat(client.getJobStatus().get()).isIn(JobStatus.CANCELED, JobStatus.FINISHED);
    }
}
