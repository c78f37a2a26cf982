package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a write's {@code governance.*} settings come from and in which order: the catalog's
 * defaults, the table's properties over them, the write's options over both; and every bad key or
 * value, from any of the three, fails the statement on the driver naming the key. The channel count
 * is read from the plan Spark makes ({@code EXPLAIN}: the write's hash partitioning into that many
 * partitions) or counted as the write tasks Spark ran.
 */
class GovernanceSettingsTest {

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "gov", warehouse, Map.of("governance.spark.write-channels", "3", "governance.memory.budget", "8m"));
        spark.sql("CREATE DATABASE IF NOT EXISTS gov.db");
    }

    @Test
    void theTableOverridesTheCatalogAndTheWriteOverridesTheTable() throws Exception {
        spark.sql("CREATE TABLE gov.db.catalog_default (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '4')");
        spark.sql("CREATE TABLE gov.db.own (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '4',"
                + " 'governance.spark.write-channels' = '5')");
        assertThat(plan("INSERT INTO gov.db.catalog_default VALUES (1, 'a')")).contains(", 3), REPARTITION_BY_NUM");
        assertThat(plan("INSERT INTO gov.db.own VALUES (1, 'a')")).contains(", 5), REPARTITION_BY_NUM");

        LocalSpark.metrics().reset();
        spark.sql("SELECT CAST(id AS INT) AS k, 'v' AS v FROM range(0, 400)").writeTo("gov.db.own")
                .option("governance.spark.write-channels", "4").append();
        LocalSpark.awaitListeners();
        assertThat(LocalSpark.metrics().resultTasksWithMemory()).as("write tasks, one per channel").isEqualTo(4);
        assertThat(Tables.query(spark, "SELECT count(*) FROM gov.db.own")).containsExactly("400");
    }

    @Test
    void aBadKeyOrValueFromTheWriteOrTheTableFailsTheStatementNamingIt() throws Exception {
        spark.sql("CREATE TABLE gov.db.t (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')");
        Dataset<Row> rows = spark.sql("SELECT 1 AS k, 'v' AS v");
        assertThatThrownBy(() -> rows.writeTo("gov.db.t").option("governance.memory.budgett", "1m").append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.memory.budgett'");
        assertThatThrownBy(() -> rows.writeTo("gov.db.t").option("governance.spark.write-channel", "2").append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.spark.write-channel' for provider 'spark'; known:"
                        + " governance.spark.write-channels");
        assertThatThrownBy(() -> rows.writeTo("gov.db.t").option("governance.spark.write-channels", "0").append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.spark.write-channels' = '0' is not a positive integer");
        assertThatThrownBy(() -> rows.writeTo("gov.db.t").option("governance.provider", "heap").append())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'governance.provider' = 'heap', but this write runs on provider 'spark'");

        // A table whose options were set by another writer (Paimon's own catalog here) without the check.
        try (Catalog catalog = Tables.paimonCatalog(warehouse)) {
            catalog.alterTable(Identifier.create("db", "t"), List.of(SchemaChange.setOption("governance.memory.budget", "1x")), false);
        }
        spark.sql("REFRESH TABLE gov.db.t");
        assertThatThrownBy(() -> spark.sql("INSERT INTO gov.db.t VALUES (1, 'a')"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'governance.memory.budget' = '1x'");
        rows.writeTo("gov.db.t").option("governance.memory.budget", "4m").append();
        // Reads are governed too: the table's bad setting fails them, naming it, unless the read overrides it.
        assertThatThrownBy(() -> Tables.query(spark, "SELECT * FROM gov.db.t"))
                .hasStackTraceContaining("'governance.memory.budget' = '1x'");
        assertThat(spark.read().option("governance.memory.budget", "4m").table("gov.db.t").collectAsList().stream().map(Tables::row))
                .containsExactly("1|v");
        assertThat(Tables.paimon(warehouse, "db", "t").snapshotManager().latestSnapshot().id())
                .as("snapshots: only the write whose settings were good").isEqualTo(1);
    }

    @Test
    void aBadCatalogDefaultFailsTheCatalogNamingTheKey() {
        Tables.register(spark, "badgov", warehouse, Map.of("governance.compaction.task-threads", "0"));
        assertThatThrownBy(() -> spark.sql("SHOW NAMESPACES IN badgov").collectAsList())
                .hasStackTraceContaining("catalog 'badgov': ")
                .hasStackTraceContaining("'governance.compaction.task-threads'");
    }

    private static String plan(String statement) {
        return spark.sql("EXPLAIN " + statement).collectAsList().get(0).getString(0);
    }
}
