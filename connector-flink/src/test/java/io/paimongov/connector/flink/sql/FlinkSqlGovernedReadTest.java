package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.flink.JobGauges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded {@code SELECT} of a governed table runs governed reads in its slots: a primary-key
 * table of {@value #ROUNDS} overlapping sorted runs per bucket (one {@code INSERT} each, the table
 * {@code write-only}) read under a 2 MiB budget, below what its runs' readers hold at once. The read
 * operators report through Flink's metric system that they merged in passes (spilled) within the
 * budget and gave everything back, and the rows are the model's: each (d, k)'s last row.
 */
class FlinkSqlGovernedReadTest {

    private static final int ROUNDS = 10;
    private static final long BUDGET = 2L << 20;

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m");

    @TempDir Path dir;

    @Test
    void aBoundedScanOfManyRunsMergesInPassesWithinItsBudgetInTheSlot() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '1', 'write-only' = 'true', 'sink.parallelism' = '1')");
        List<List<Row>> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            List<Row> rows = new ArrayList<>();
            for (Row r : SqlRows.random(100 + i, 600, 1_000, "r" + i)) {
                rows.add(Row.of(r.getField(0), r.getField(1) + "-" + "x".repeat(300), r.getField(2)));
            }
            s.view("round" + i, rows, SqlSession.KVD);
            s.run("INSERT INTO t SELECT * FROM round" + i);
            rounds.add(rows);
        }

        TableResult result = s.sql.executeSql("SELECT * FROM t /*+ OPTIONS('governance.memory.budget' = '" + BUDGET + "') */");
        List<String> read = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(r -> read.add(r.toString()));
        }
        JobID job = result.getJobClient().orElseThrow().getJobID();

        assertThat(SqlRows.sorted(read)).isEqualTo(SqlRows.byPartitionAndKey(rounds, 0));
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "budgetBytes").values()).as("the governed read operators' budgets")
                .isNotEmpty().containsOnly(BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "spillBytes").values()).as("a read merged in passes").anyMatch(n -> n > 0);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "peakReservedBytes").values()).allMatch(peak -> peak > 0 && peak <= BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "reservedBytes").values()).containsOnly(0L);
    }
}
