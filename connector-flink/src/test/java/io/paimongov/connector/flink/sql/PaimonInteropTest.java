package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables written by Paimon's own Flink connector (catalog {@code p}, {@code 'type' = 'paimon'}) and
 * by the governed one (catalog {@code g}) on one warehouse are interchangeable: with fixed buckets
 * every key lands in the same bucket through either; a dynamic-bucket or cross-partition table
 * written by one is continued by the other (each finds the other's keys through the table's index:
 * one row per key, a key keeps its bucket), with different writer parallelism too. Each step is
 * checked against the model of all rows written so far, read through the other catalog.
 */
class PaimonInteropTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m");

    @TempDir Path dir;

    @Test
    void withFixedBucketsEveryKeyLandsInTheSameBucketThroughEitherConnector() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        String columns = "(k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)";
        s.exec("CREATE TABLE by_paimon " + columns + " WITH ('bucket' = '5')");
        s.exec("CREATE TABLE governed " + columns + " WITH ('bucket' = '5', 'sink.parallelism' = '2')");
        List<Row> rows = SqlRows.random(1, 3_000, 1_000, "f");
        s.view("src", rows, SqlSession.KVD);
        s.run("INSERT INTO p.db.by_paimon SELECT * FROM src");
        s.run("INSERT INTO g.db.governed SELECT * FROM src");

        Map<String, Integer> paimon = bucketsOfKeys("by_paimon");
        assertThat(paimon).hasSize(SqlRows.byPartitionAndKey(List.of(rows), 0).size());
        assertThat(bucketsOfKeys("governed")).isEqualTo(paimon);
        assertThat(SqlRows.sorted(s.query("SELECT * FROM p.db.governed"))).isEqualTo(SqlRows.byPartitionAndKey(List.of(rows), 0));
        assertThat(SqlRows.sorted(s.query("SELECT * FROM g.db.by_paimon"))).isEqualTo(SqlRows.byPartitionAndKey(List.of(rows), 0));
    }

    @Test
    void aDynamicBucketTableIsContinuedByTheOtherConnectorKeyForKey() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '150')");
        List<List<Row>> rounds = new ArrayList<>();
        String[] writers = {"p", "g", "p", "g"};
        for (int round = 0; round < writers.length; round++) {
            List<Row> rows = SqlRows.random(10 + round, 1_500, 900 + 200 * round, "r" + round);
            rounds.add(rows);
            s.view("src" + round, rows, SqlSession.KVD);
            Map<String, Integer> before = bucketsOfKeys("t");
            String parallelism = round % 2 == 0 ? "2" : "1";
            s.run("INSERT INTO " + writers[round] + ".db.t /*+ OPTIONS('sink.parallelism' = '" + parallelism + "') */"
                    + " SELECT * FROM src" + round);
            String reader = writers[round].equals("p") ? "g" : "p";
            assertThat(SqlRows.sorted(s.query("SELECT * FROM " + reader + ".db.t")))
                    .as("round %s written through %s", round, writers[round]).isEqualTo(SqlRows.byPartitionAndKey(rounds, 0));
            Map<String, Integer> after = bucketsOfKeys("t");
            before.forEach((key, bucket) -> assertThat(after.get(key)).as("bucket of key %s", key).isEqualTo(bucket));
        }
    }

    @Test
    void aCrossPartitionTableIsContinuedByTheOtherConnector() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '150')");
        List<List<Row>> rounds = new ArrayList<>();
        String[] writers = {"p", "g", "p", "g"};
        for (int round = 0; round < writers.length; round++) {
            List<Row> rows = SqlRows.random(20 + round, 1_500, 700 + 100 * round, "x" + round);
            rounds.add(rows);
            s.view("src" + round, rows, SqlSession.KVD);
            String parallelism = round % 2 == 0 ? "1" : "2";
            s.run("INSERT INTO " + writers[round] + ".db.t /*+ OPTIONS('sink.parallelism' = '" + parallelism + "') */"
                    + " SELECT * FROM src" + round);
            String reader = writers[round].equals("p") ? "g" : "p";
            assertThat(SqlRows.sorted(s.query("SELECT * FROM " + reader + ".db.t")))
                    .as("round %s written through %s", round, writers[round]).isEqualTo(SqlRows.byKey(rounds, 0));
        }
    }

    /** Each key of {@code db.name} ("d/k") and the bucket whose files hold it, from Paimon's own plan. */
    private Map<String, Integer> bucketsOfKeys(String name) throws Exception {
        Map<String, Integer> buckets = new TreeMap<>();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(dir.resolve("wh").toUri())))) {
            FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create("db", name));
            ReadBuilder builder = table.newReadBuilder();
            for (Split split : builder.newScan().plan().splits()) {
                int bucket = ((DataSplit) split).bucket();
                try (RecordReader<InternalRow> reader = builder.newRead().createReader(split)) {
                    reader.forEachRemaining(row -> {
                        Integer before = buckets.put(row.getString(2) + "/" + row.getInt(0), bucket);
                        assertThat(before).as("one bucket per key").isIn(null, bucket);
                    });
                }
            }
        }
        return buckets;
    }
}
