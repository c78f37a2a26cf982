package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.flink.JobGauges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Governance options through SQL: the catalog's defaults, a table's {@code WITH} and a statement's
 * {@code /*+ OPTIONS(...) *}{@code /} hint, the later winning, read back from the writers' {@code
 * budgetBytes} gauges; a bad key in any of the three fails its statement naming the key; the writer
 * of a small slot spills and stays within its share; {@code INSERT OVERWRITE} of a whole table, a
 * static partition (with no rows, as Paimon's {@code dynamic-partition-overwrite} says) and the
 * partitions the rows touch.
 */
class FlinkSqlOptionsTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    /** 16 MiB over 2 slots: a writer alone in its slot has about 8 MiB. */
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "16m");

    @TempDir Path dir;

    @Test
    void theHintWinsOverTheTableWhichWinsOverTheCatalog() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"), "'governance.memory.budget' = '6m'");
        s.exec("CREATE TABLE plain (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')");
        s.exec("CREATE TABLE own (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2',"
                + " 'governance.memory.budget' = '5m')");
        s.view("src", SqlRows.random(1, 300, 100, "o"), SqlSession.KVD);

        assertThat(budgets(s.run("INSERT INTO plain SELECT * FROM src"))).containsOnly(6L << 20);
        assertThat(budgets(s.run("INSERT INTO own SELECT * FROM src"))).containsOnly(5L << 20);
        assertThat(budgets(s.run("INSERT INTO own /*+ OPTIONS('governance.memory.budget' = '4m') */ SELECT * FROM src")))
                .containsOnly(4L << 20);
    }

    @Test
    void aBadGovernanceKeyFailsItsStatementNamingTheKey() throws Exception {
        assertThatThrownBy(() -> SqlSession.batch(dir.resolve("wh"), "'governance.compaction.task-threads' = '0'"))
                .hasStackTraceContaining("governance.compaction.task-threads");
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        assertThatThrownBy(() -> s.exec("CREATE TABLE t (k INT, v STRING, d STRING) WITH ('governance.memroy.budget' = '4m')"))
                .hasStackTraceContaining("unknown option 'governance.memroy.budget'");
        assertThat(s.query("SHOW TABLES")).isEmpty();
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')");
        s.view("src", SqlRows.random(2, 10, 10, "b"), SqlSession.KVD);
        assertThatThrownBy(() -> s.exec("INSERT INTO t /*+ OPTIONS('governance.memory.budget' = 'lots') */ SELECT * FROM src"))
                .hasStackTraceContaining("governance.memory.budget");
        assertThatThrownBy(() -> s.exec("INSERT INTO t /*+ OPTIONS('governance.provider' = 'heap') */ SELECT * FROM src"))
                .hasStackTraceContaining("'governance.provider' = 'heap', but this write runs on provider 'flink'");
        assertThatThrownBy(() -> s.exec("INSERT INTO t /*+ OPTIONS('sink.parallelism' = '0') */ SELECT * FROM src"))
                .hasStackTraceContaining("'sink.parallelism' = '0'");
        assertThat(s.query("SELECT * FROM t")).as("nothing written by the refused statements").isEmpty();
    }

    @Test
    void aWriterOfASmallSlotSpillsWithinItsShareAndGivesEverythingBack() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '2', 'sink.parallelism' = '1')");
        List<Row> rows = new ArrayList<>();
        for (Row r : SqlRows.random(3, 60_000, 20_000, "s")) {
            rows.add(Row.of(r.getField(0), r.getField(1) + "-" + "x".repeat(64), r.getField(2)));
        }
        s.view("src", rows, SqlSession.KVD);
        JobID job = s.run("INSERT INTO t SELECT * FROM src");

        assertThat(JobGauges.ofWriters(REPORTER, job, "spillCount").values()).as("the writer spilled").allMatch(n -> n > 0);
        assertThat(JobGauges.ofWriters(REPORTER, job, "peakReservedBytes").values())
                .allMatch(peak -> peak > 0 && peak <= 8L << 20);
        assertThat(JobGauges.of(REPORTER, job, "reservedBytes").values()).containsOnly(0L);
        assertThat(SqlRows.sorted(s.query("SELECT * FROM t"))).isEqualTo(SqlRows.byPartitionAndKey(List.of(rows), 0));
    }

    @Test
    void insertOverwriteReplacesTheTableAStaticPartitionOrThePartitionsItsRowsTouch() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '2')");
        s.exec("CREATE TABLE whole (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '-1')");
        List<Row> first = SqlRows.random(4, 900, 300, "one");
        List<Row> second = SqlRows.random(5, 900, 300, "two");
        s.view("first_rows", first, SqlSession.KVD);
        s.view("second_rows", second, SqlSession.KVD);
        s.run("INSERT INTO t SELECT * FROM first_rows");
        s.run("INSERT INTO whole SELECT * FROM first_rows");

        s.run("INSERT OVERWRITE t PARTITION (d = 'a') SELECT k, v FROM second_rows WHERE d = 'a'");
        List<Row> model = new ArrayList<>(first.stream().filter(r -> !"a".equals(r.getField(2))).toList());
        model.addAll(second.stream().filter(r -> "a".equals(r.getField(2))).toList());
        assertThat(SqlRows.sorted(s.query("SELECT * FROM t"))).isEqualTo(SqlRows.byPartitionAndKey(List.of(model), 0));

        s.run("INSERT OVERWRITE t SELECT * FROM second_rows WHERE d = 'b'");
        model.removeIf(r -> "b".equals(r.getField(2)));
        model.addAll(second.stream().filter(r -> "b".equals(r.getField(2))).toList());
        assertThat(SqlRows.sorted(s.query("SELECT * FROM t"))).as("dynamic partition overwrite")
                .isEqualTo(SqlRows.byPartitionAndKey(List.of(model), 0));

        // Paimon's dynamic partition overwrite (its default) replaces only partitions that get rows;
        // with it off, a static partition is replaced by whatever comes, nothing included.
        s.run("INSERT OVERWRITE t PARTITION (d = 'c') SELECT k, v FROM second_rows WHERE k < 0");
        assertThat(SqlRows.sorted(s.query("SELECT * FROM t"))).as("an empty overwrite, dynamic: nothing replaced")
                .isEqualTo(SqlRows.byPartitionAndKey(List.of(model), 0));
        s.run("INSERT OVERWRITE t /*+ OPTIONS('dynamic-partition-overwrite' = 'false') */ PARTITION (d = 'c')"
                + " SELECT k, v FROM second_rows WHERE k < 0");
        model.removeIf(r -> "c".equals(r.getField(2)));
        assertThat(SqlRows.sorted(s.query("SELECT * FROM t"))).as("an empty overwrite, static: the partition emptied")
                .isEqualTo(SqlRows.byPartitionAndKey(List.of(model), 0));

        s.run("INSERT OVERWRITE whole SELECT * FROM second_rows WHERE k < 100");
        assertThat(SqlRows.sorted(s.query("SELECT * FROM whole")))
                .isEqualTo(SqlRows.byKey(List.of(second.stream().filter(r -> (Integer) r.getField(0) < 100).toList()), 0));
    }

    private static java.util.Collection<Long> budgets(JobID job) {
        return JobGauges.ofWriters(REPORTER, job, "budgetBytes").values();
    }
}
