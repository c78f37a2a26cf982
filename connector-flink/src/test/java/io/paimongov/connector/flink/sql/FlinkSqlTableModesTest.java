package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.flink.JobGauges;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every table mode through the governed catalog's SQL, with DDL as Paimon's own Flink catalog takes
 * it: two {@code INSERT INTO} rounds and a row-level {@code DELETE}, read back with {@code SELECT}
 * (in batch mode a governed scan, GovernedTableSource) and compared with the model of the input ({@link SqlRows}); the job ran the
 * governed writer and every writer gave its memory back.
 */
class FlinkSqlTableModesTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m");

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"fixed", "dynamic", "cross-partition", "deletion-vectors", "lookup", "append", "append-bucketed"})
    void everyTableModeGivesTheModelOfItsInput(String mode) throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        String ddl = switch (mode) {
            case "fixed" -> "PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '4'";
            case "dynamic" -> "PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '-1',"
                    + " 'dynamic-bucket.target-row-num' = '200'";
            case "cross-partition" -> "PRIMARY KEY (k) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '-1',"
                    + " 'dynamic-bucket.target-row-num' = '200'";
            case "deletion-vectors" -> "PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '2',"
                    + " 'deletion-vectors.enabled' = 'true'";
            case "lookup" -> "PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket' = '2',"
                    + " 'changelog-producer' = 'lookup'";
            case "append" -> ") PARTITIONED BY (d) WITH ('bucket' = '-1'";
            default -> ") WITH ('bucket' = '3', 'bucket-key' = 'k'";
        };
        // Two writers (and two assigners for dynamic buckets) behind a source of one task.
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING" + (ddl.startsWith(")") ? "" : ", ") + ddl + ", 'sink.parallelism' = '2')");
        List<Row> first = SqlRows.random(1, 2_000, 600, "one");
        List<Row> second = SqlRows.random(2, 2_000, 800, "two");
        s.view("round1", first, SqlSession.KVD);
        s.view("round2", second, SqlSession.KVD);

        assertThat(s.sql.explainSql("INSERT INTO t SELECT * FROM round1", ExplainDetail.JSON_EXECUTION_PLAN))
                .as("the statement's job writes through the governed writer").contains("paimon-gov writer t");
        JobID job = s.run("INSERT INTO t SELECT * FROM round1");
        assertThat(JobGauges.ofWriters(REPORTER, job, "inputRows")).as("the writers").hasSize(2);
        assertThat(JobGauges.ofWriters(REPORTER, job, "inputRows").values().stream().mapToLong(Long::longValue).sum())
                .as("rows the governed writers took").isGreaterThanOrEqualTo(first.size());
        assertThat(JobGauges.of(REPORTER, job, "reservedBytes").values()).containsOnly(0L);
        boolean assigned = mode.equals("dynamic") || mode.equals("cross-partition");
        assertThat(JobGauges.of(REPORTER, job, "inputRows")).as("writers and assigners").hasSize(assigned ? 4 : 2);
        s.run("INSERT INTO t SELECT * FROM round2");

        boolean primaryKey = !mode.startsWith("append");
        if (primaryKey) {
            s.run("DELETE FROM t WHERE k < 50");
        }
        List<List<Row>> rounds = List.of(first, second);
        List<String> expected = switch (mode) {
            case "cross-partition" -> SqlRows.byKey(rounds, 50);
            case "append", "append-bucketed" -> SqlRows.all(rounds);
            default -> SqlRows.byPartitionAndKey(rounds, 50);
        };
        assertThat(SqlRows.sorted(s.query("SELECT * FROM t"))).isEqualTo(expected);
    }

    /**
     * A postpone-bucket table ({@code bucket = -2}) keeps every written row in the postpone bucket,
     * where Paimon's reads do not look until a compaction gives the rows buckets: {@code SELECT}
     * shows none, the committed files of bucket -2 hold them all.
     */
    @Test
    void aPostponeBucketTableKeepsEveryRowInThePostponeBucket() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        s.exec("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED) PARTITIONED BY (d)"
                + " WITH ('bucket' = '-2')");
        List<Row> rows = SqlRows.random(3, 1_500, 500, "p");
        s.view("src", rows, SqlSession.KVD);
        s.run("INSERT INTO t SELECT * FROM src");

        FileStoreTable table = table("t");
        long committed = 0;
        for (ManifestEntry entry : table.store().newScan().plan().files()) {
            assertThat(entry.bucket()).isEqualTo(-2);
            committed += entry.file().rowCount();
        }
        assertThat(committed).isEqualTo(rows.size());
        assertThat(s.query("SELECT * FROM t")).isEmpty();
    }

    /** A table declared outside a catalog with {@code 'connector' = 'paimon-governed'} and its path. */
    @Test
    void aTableDeclaredWithTheConnectorOptionIsWrittenThroughTheGovernedWriter() throws Exception {
        SqlSession s = SqlSession.batch(dir.resolve("wh"));
        String path = dir.resolve("outside").toUri().toString();
        s.exec("CREATE TEMPORARY TABLE default_catalog.default_database.ext (k INT, v STRING, d STRING,"
                + " PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'paimon-governed', 'path' = '" + path + "',"
                + " 'auto-create' = 'true', 'bucket' = '2')");
        List<Row> rows = SqlRows.random(4, 1_000, 300, "x");
        s.view("src", rows, SqlSession.KVD);
        String insert = "INSERT INTO default_catalog.default_database.ext SELECT * FROM src";
        assertThat(s.sql.explainSql(insert, ExplainDetail.JSON_EXECUTION_PLAN)).contains("paimon-gov writer");
        s.run(insert);
        assertThat(SqlRows.sorted(s.query("SELECT * FROM default_catalog.default_database.ext")))
                .isEqualTo(SqlRows.byKey(List.of(rows), 0));
    }

    private FileStoreTable table(String name) throws Exception {
        try (org.apache.paimon.catalog.Catalog catalog = org.apache.paimon.catalog.CatalogFactory.createCatalog(
                org.apache.paimon.catalog.CatalogContext.create(new org.apache.paimon.fs.Path(dir.resolve("wh").toUri())))) {
            return (FileStoreTable) catalog.getTable(Identifier.create("db", name));
        }
    }
}
