package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.flink.JobGauges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookup joins of governed tables run governed lookups in their slots. By the primary key: a partitioned
 * dimension table of {@value #ROUNDS} overlapping rounds of {@value #KEYS} wide rows is looked up
 * {@value #FACTS} times under a 2 MiB budget. The joined rows are the model's (each fact with its
 * key's last row; facts without one dropped), every lookup went through a governed lookup, its
 * cached pages and the lookup's reservations stayed within the budget, and nothing is held after;
 * with a hash aggregate after the join (which takes its slot's managed memory) too. By a
 * field that is no key, of an append table larger than its cache: the rows are the model's (every
 * row of the fact's key), keys were read from the table, and the cache stayed within its half. With
 * {@code scan.partitions} = {@code max_pt()}, both look in the latest partition only.
 */
class FlinkSqlGovernedLookupTest {

    private static final int ROUNDS = 3;
    private static final int KEYS = 12_000;
    private static final int FACTS = 3_000;
    private static final long BUDGET = 2L << 20;

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    private static final Path FLINK_TMP = SqlCluster.tmpDir();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m", 2, FLINK_TMP);

    @TempDir Path dir;

    @Test
    void aLookupJoinByThePrimaryKeyIsGovernedAndEvictsWithinItsBudget() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE dim (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '2', 'write-only' = 'true')");
        List<List<Row>> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            List<Row> rows = new ArrayList<>();
            for (Row r : SqlRows.random(7 + i, KEYS, KEYS, "r" + i)) {
                rows.add(Row.of(r.getField(0), r.getField(1) + "-" + "y".repeat(200), r.getField(2)));
            }
            s.view("dim_round" + i, rows, SqlSession.KVD);
            s.run("INSERT INTO dim SELECT * FROM dim_round" + i);
            rounds.add(rows);
        }
        Map<String, Row> last = new TreeMap<>();
        rounds.forEach(round -> round.forEach(r -> last.put(r.getField(2) + "/" + r.getField(0), r)));

        RowTypeInfo factType = new RowTypeInfo(new TypeInformation<?>[] {Types.INT, Types.INT, Types.STRING}, new String[] {"id", "k", "d"});
        List<Row> facts = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        Random random = new Random(42);
        for (int id = 0; id < FACTS; id++) {
            Row fact = Row.of(id, random.nextInt(KEYS + KEYS / 10), String.valueOf((char) ('a' + random.nextInt(3))));
            facts.add(fact);
            Row match = last.get(fact.getField(2) + "/" + fact.getField(1));
            if (match != null) {
                expected.add(Row.of(id, match.getField(1)).toString());
            }
        }
        s.sql.createTemporaryView("facts", s.sql.fromDataStream(s.env.fromData(facts, factType).setParallelism(1),
                Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build()));

        Ran joined = run(s, "SELECT f.id, x.v FROM facts AS f JOIN dim"
                + " /*+ OPTIONS('governance.memory.budget' = '" + BUDGET + "') */ FOR SYSTEM_TIME AS OF f.pt AS x"
                + " ON f.k = x.k AND f.d = x.d");
        JobID job = joined.job();

        assertThat(SqlRows.sorted(joined.rows())).isEqualTo(SqlRows.sorted(expected));
        assertThat(sum(job, "lookups")).as("every fact looked up by a governed lookup").isEqualTo(FACTS);
        assertThat(sum(job, "lookupHits")).as("facts with a row").isEqualTo(expected.size());
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "peakLookupCacheBytes").values()).as("pages cached within the budget")
                .isNotEmpty().allMatch(peak -> peak > 0 && peak <= BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "budgetBytes").values()).isNotEmpty().containsOnly(BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "peakReservedBytes").values()).allMatch(peak -> peak > 0 && peak <= BUDGET);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "reservedBytes").values()).containsOnly(0L);
        assertThat(JobGauges.scopesLeft(FLINK_TMP)).as("lookup files left after the job").isEmpty();

        // A hash aggregate after the join takes its slot's managed memory whole; the lookup's budget is on the heap.
        Map<String, Long> perPartition = new TreeMap<>();
        for (Row fact : facts) {
            if (last.containsKey(fact.getField(2) + "/" + fact.getField(1))) {
                perPartition.merge((String) fact.getField(2), 1L, Long::sum);
            }
        }
        List<String> counts = s.query("SELECT x.d, COUNT(*) FROM facts AS f JOIN dim"
                + " /*+ OPTIONS('governance.memory.budget' = '" + BUDGET + "') */ FOR SYSTEM_TIME AS OF f.pt AS x"
                + " ON f.k = x.k AND f.d = x.d GROUP BY x.d");
        assertThat(SqlRows.sorted(counts)).isEqualTo(SqlRows.sorted(
                perPartition.entrySet().stream().map(e -> Row.of(e.getKey(), e.getValue())).toList()));
    }

    @Test
    void aLookupJoinByAFieldThatIsNoKeyReadsTheKeysItCannotCache() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE events (k INT, v STRING, d STRING) PARTITIONED BY (d)");
        List<Row> rows = new ArrayList<>();
        for (Row r : SqlRows.random(3, 8_000, 800, "e")) {
            rows.add(Row.of(r.getField(0), r.getField(1) + "-" + "z".repeat(200), r.getField(2)));
        }
        s.view("events_rows", rows, SqlSession.KVD);
        s.run("INSERT INTO events SELECT * FROM events_rows");

        RowTypeInfo factType = new RowTypeInfo(new TypeInformation<?>[] {Types.INT, Types.INT}, new String[] {"id", "k"});
        List<Row> facts = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        Random random = new Random(43);
        for (int id = 0; id < 300; id++) {
            int k = random.nextInt(900);
            facts.add(Row.of(id, k));
            for (Row event : rows) {
                if ((Integer) event.getField(0) == k) {
                    expected.add(Row.of(id, event.getField(1), event.getField(2)).toString());
                }
            }
        }
        s.sql.createTemporaryView("facts", s.sql.fromDataStream(s.env.fromData(facts, factType).setParallelism(1),
                Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build()));

        long budget = 4L << 20;
        Ran joined = run(s, "SELECT f.id, e.v, e.d FROM facts AS f JOIN events"
                + " /*+ OPTIONS('governance.memory.budget' = '" + budget + "') */ FOR SYSTEM_TIME AS OF f.pt AS e ON f.k = e.k");
        JobID job = joined.job();

        assertThat(SqlRows.sorted(joined.rows())).isEqualTo(SqlRows.sorted(expected));
        assertThat(sum(job, "lookups")).as("every fact looked up by a governed lookup").isEqualTo(facts.size());
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "lookupKeyScans").values()).as("keys read from the table: it does not fit")
                .anyMatch(n -> n > 0);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "peakLookupCacheBytes").values()).as("the cache within half the budget")
                .isNotEmpty().allMatch(peak -> peak > 0 && peak <= budget / 2);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "peakReservedBytes").values()).allMatch(peak -> peak > 0 && peak <= budget);
        assertThat(JobGauges.ofAnyOperator(REPORTER, job, "reservedBytes").values()).containsOnly(0L);
    }

    @Test
    void aLookupJoinOfTheLatestPartitionLooksOnlyThere() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE dims (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '2')");
        s.exec("CREATE TABLE evs (k INT, v STRING, d STRING) PARTITIONED BY (d)");
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < 50; k++) {
            rows.add(Row.of(k, "old-" + k, "a"));
            rows.add(Row.of(k, "new-" + k, "b"));
            rows.add(Row.of(k, "new2-" + k, "b"));
        }
        s.view("part_rows", rows, SqlSession.KVD);
        s.run("INSERT INTO dims SELECT * FROM part_rows");
        s.run("INSERT INTO evs SELECT * FROM part_rows");

        RowTypeInfo factType = new RowTypeInfo(new TypeInformation<?>[] {Types.INT, Types.INT}, new String[] {"id", "k"});
        List<Row> facts = new ArrayList<>();
        for (int id = 0; id < 60; id++) {
            facts.add(Row.of(id, id));
        }
        s.sql.createTemporaryView("facts", s.sql.fromDataStream(s.env.fromData(facts, factType).setParallelism(1),
                Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build()));
        List<String> byKey = new ArrayList<>();
        List<String> byField = new ArrayList<>();
        for (int id = 0; id < 50; id++) {
            byKey.add(Row.of(id, "new2-" + id).toString());
            byField.add(Row.of(id, "new-" + id).toString());
            byField.add(Row.of(id, "new2-" + id).toString());
        }

        String hint = " /*+ OPTIONS('scan.partitions' = 'max_pt()', 'governance.memory.budget' = '4m') */";
        Ran dims = run(s, "SELECT f.id, x.v FROM facts AS f JOIN dims" + hint + " FOR SYSTEM_TIME AS OF f.pt AS x ON f.k = x.k");
        Ran evs = run(s, "SELECT f.id, x.v FROM facts AS f JOIN evs" + hint + " FOR SYSTEM_TIME AS OF f.pt AS x ON f.k = x.k");

        assertThat(SqlRows.sorted(dims.rows())).as("by primary key, in partition b only").isEqualTo(SqlRows.sorted(byKey));
        assertThat(SqlRows.sorted(evs.rows())).as("by a field, every row of partition b").isEqualTo(SqlRows.sorted(byField));
        for (Ran ran : List.of(dims, evs)) {
            assertThat(sum(ran.job(), "lookups")).as("governed lookups, one per fact and partition").isEqualTo(facts.size());
        }
    }

    /** A query's rows, as {@code Row.toString()}, and its job. */
    private record Ran(List<String> rows, JobID job) {}

    private static Ran run(SqlSession s, String query) throws Exception {
        TableResult result = s.sql.executeSql(query);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(r -> rows.add(r.toString()));
        }
        return new Ran(rows, result.getJobClient().orElseThrow().getJobID());
    }

    /** The gauge {@code name} summed over the job's governed lookups. */
    private static long sum(JobID job, String name) {
        return JobGauges.ofAnyOperator(REPORTER, job, name).values().stream().mapToLong(Long::longValue).sum();
    }
}
