package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.connector.spark.SparkLines;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark DDL as Paimon users write it, checked against the Paimon table Paimon's own catalog then
 * finds (types written out by hand as Paimon names them, keys, options, comments), every type
 * written and read back equal to what was inserted, {@code ALTER}/{@code DROP}/{@code RENAME},
 * namespaces, a system table, and the errors for what the catalog does not take, each naming what
 * it refuses.
 */
class CatalogDdlTest {

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "ddl", warehouse, Map.of());
        spark.sql("CREATE DATABASE IF NOT EXISTS ddl.db");
    }

    private static final String ORDERS = "CREATE TABLE ddl.db.orders ("
            + " id BIGINT NOT NULL COMMENT 'order id', dt STRING, flag BOOLEAN, b TINYINT, s SMALLINT, i INT, f FLOAT,"
            + " x DOUBLE, amount DECIMAL(12, 2), name STRING, code CHAR(4), tag VARCHAR(16), payload BINARY, day DATE,"
            + " at TIMESTAMP, local_at TIMESTAMP_NTZ, tags ARRAY<STRING>, attrs MAP<STRING, INT>,"
            + " address STRUCT<city: STRING, zip: INT>)"
            + " USING paimon COMMENT 'the orders' PARTITIONED BY (dt)"
            + " TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '4', 'bucket-key' = 'id', 'file.format' = 'parquet',"
            + " 'changelog-producer' = 'lookup', 'merge-engine' = 'deduplicate', 'governance.memory.budget' = '16m')";

    @Test
    void aPaimonUsersCreateTableMakesThePaimonTableItDescribes() throws Exception {
        spark.sql(ORDERS);
        FileStoreTable table = Tables.paimon(warehouse, "db", "orders");

        List<String> columns = new ArrayList<>();
        for (DataField field : table.rowType().getFields()) {
            columns.add(field.name() + " " + field.type().asSQLString());
        }
        assertThat(columns).containsExactly(
                "id BIGINT NOT NULL", "dt STRING NOT NULL", "flag BOOLEAN", "b TINYINT", "s SMALLINT", "i INT", "f FLOAT",
                "x DOUBLE", "amount DECIMAL(12, 2)", "name STRING", "code CHAR(4)", "tag VARCHAR(16)", "payload BYTES",
                "day DATE", "at TIMESTAMP(6) WITH LOCAL TIME ZONE", "local_at TIMESTAMP(6)", "tags ARRAY<STRING>",
                "attrs MAP<STRING NOT NULL, INT>", "address ROW<`city` STRING, `zip` INT>");
        assertThat(table.rowType().getField("id").description()).isEqualTo("order id");
        assertThat(table.primaryKeys()).containsExactly("id", "dt");
        assertThat(table.partitionKeys()).containsExactly("dt");
        assertThat(table.comment()).contains("the orders");
        assertThat(table.options()).containsEntry("bucket", "4").containsEntry("bucket-key", "id")
                .containsEntry("file.format", "parquet").containsEntry("changelog-producer", "lookup")
                .containsEntry("merge-engine", "deduplicate").containsEntry("governance.memory.budget", "16m")
                .doesNotContainKeys("primary-key", "provider", "owner", "comment");

        List<String> properties = Tables.query(spark, "SHOW TBLPROPERTIES ddl.db.orders");
        assertThat(properties).contains("primary-key|id,dt", "bucket|4", "governance.memory.budget|16m");
        assertThat(Tables.query(spark, "SHOW TABLES IN ddl.db")).contains("db|orders|false");
    }

    @Test
    void everyTypeIsReadBackAsItWasWrittenAndPaimonHoldsItsOwnValues() throws Exception {
        spark.sql(ORDERS.replace("ddl.db.orders", "ddl.db.types"));
        spark.conf().set("spark.sql.session.timeZone", "UTC");
        try {
            spark.sql("CREATE OR REPLACE TEMPORARY VIEW typed AS SELECT * FROM VALUES"
                    + " (1L, 'd1', true, 1Y, 2S, 3, 1.5F, 2.25D, 12345.67BD, 'name', 'abcd', 'tag', X'0102', DATE'2024-01-02',"
                    + "  TIMESTAMP'2024-01-02 03:04:05.123456', TIMESTAMP_NTZ'2024-01-02 03:04:05.654321', array('a', null, 'c'),"
                    + "  map('k1', 1, 'k2', null), named_struct('city', 'Oslo', 'zip', 150)),"
                    + " (2L, 'd2', null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,"
                    + "  null)"
                    + " AS v(id, dt, flag, b, s, i, f, x, amount, name, code, tag, payload, day, at, local_at, tags, attrs, address)");
            spark.sql("INSERT INTO ddl.db.types SELECT * FROM typed");

            List<Row> written = spark.sql("SELECT * FROM typed ORDER BY id").collectAsList();
            List<Row> read = spark.sql("SELECT * FROM ddl.db.types ORDER BY id").collectAsList();
            assertThat(read).isEqualTo(written);
        } finally {
            spark.conf().unset("spark.sql.session.timeZone");
        }

        FileStoreTable table = Tables.paimon(warehouse, "db", "types");
        ReadBuilder builder = table.newReadBuilder().withProjection(new int[] {0, 8, 10, 13, 14, 15, 18});
        List<InternalRow> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan())) {
            reader.forEachRemaining(row -> {
                if (row.getLong(0) == 1L) {
                    rows.add(row);
                    assertThat(row.getDecimal(1, 12, 2).toBigDecimal()).isEqualTo(new BigDecimal("12345.67"));
                    assertThat(row.getString(2).toString()).isEqualTo("abcd");
                    assertThat(row.getInt(3)).isEqualTo((int) LocalDate.of(2024, 1, 2).toEpochDay());
                    assertThat(row.getTimestamp(4, 6).toInstant()).isEqualTo(Instant.parse("2024-01-02T03:04:05.123456Z"));
                    assertThat(row.getTimestamp(5, 6).toLocalDateTime()).isEqualTo(LocalDateTime.of(2024, 1, 2, 3, 4, 5, 654_321_000));
                    assertThat(row.getRow(6, 2).getString(0).toString()).isEqualTo("Oslo");
                    assertThat(row.getRow(6, 2).getInt(1)).isEqualTo(150);
                }
            });
        }
        assertThat(rows).hasSize(1);
    }

    @Test
    void alterDropRenameAndNamespacesChangeWhatPaimonsCatalogHolds() throws Exception {
        spark.sql("CREATE TABLE ddl.db.evolving (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')");
        spark.sql("ALTER TABLE ddl.db.evolving SET TBLPROPERTIES ('snapshot.time-retained' = '2 h', 'governance.memory.budget' = '32m')");
        spark.sql("ALTER TABLE ddl.db.evolving ADD COLUMN note STRING COMMENT 'a note'");
        spark.sql("ALTER TABLE ddl.db.evolving RENAME COLUMN note TO remark");
        spark.sql("ALTER TABLE ddl.db.evolving ALTER COLUMN remark COMMENT 'a remark'");
        spark.sql("ALTER TABLE ddl.db.evolving UNSET TBLPROPERTIES ('snapshot.time-retained')");
        spark.sql("INSERT INTO ddl.db.evolving VALUES (1, 'one', 'r')");
        FileStoreTable table = Tables.paimon(warehouse, "db", "evolving");
        assertThat(table.rowType().getFieldNames()).containsExactly("k", "v", "remark");
        assertThat(table.rowType().getField("remark").description()).isEqualTo("a remark");
        assertThat(table.options()).containsEntry("governance.memory.budget", "32m").doesNotContainKey("snapshot.time-retained");

        spark.sql("ALTER TABLE ddl.db.evolving RENAME TO ddl.db.evolved");
        assertThat(Tables.query(spark, "SELECT * FROM ddl.db.evolved")).containsExactly("1|one|r");
        assertThat(Tables.query(spark, "SELECT snapshot_id, commit_kind FROM ddl.db.`evolved$snapshots`")).containsExactly("1|APPEND");

        spark.sql("CREATE NAMESPACE ddl.scratch");
        spark.sql("CREATE TABLE ddl.scratch.gone (k INT)");
        assertThat(Tables.query(spark, "SHOW NAMESPACES IN ddl")).contains("db", "default", "scratch");
        spark.sql("DROP TABLE ddl.scratch.gone");
        spark.sql("DROP NAMESPACE ddl.scratch CASCADE");
        try (Catalog catalog = Tables.paimonCatalog(warehouse)) {
            assertThat(catalog.listDatabases()).contains("db").doesNotContain("scratch");
            assertThat(catalog.listTables("db")).contains("evolved").doesNotContain("evolving");
            assertThat(catalog.getTable(Identifier.create("db", "evolved")).primaryKeys()).containsExactly("k");
        }
    }

    @Test
    void whatTheCatalogDoesNotTakeFailsNamingIt() {
        assertThatThrownBy(() -> spark.sql("CREATE TABLE ddl.db.p (k INT) USING parquet"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("USING parquet: the governed catalog makes Paimon tables");
        assertThatThrownBy(() -> spark.sql("CREATE TABLE ddl.db.b (k INT) PARTITIONED BY (bucket(4, k))"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("PARTITIONED BY bucket(4, k): a Paimon table is partitioned by columns");
        if (SparkLines.VARIANT) { // Spark 3.5's parser has no VARIANT
            assertThatThrownBy(() -> spark.sql("CREATE TABLE ddl.db.v (k INT, vs ARRAY<VARIANT>)"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("column 'vs.element' has type VARIANT, which the governed Spark catalog does not convert");
        }
        assertThatThrownBy(() -> spark.sql("CREATE TABLE ddl.db.g (k INT) TBLPROPERTIES ('governance.memory.budgt' = '1m')"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.memory.budgt'");
        spark.sql("CREATE TABLE ddl.db.ok (k INT)");
        // Spark reports a refused ALTER as "Unsupported table change: <the catalog's message>".
        assertThatThrownBy(() -> spark.sql("ALTER TABLE ddl.db.ok SET TBLPROPERTIES ('governance.memory.budget' = 'lots')"))
                .hasMessageContaining("'governance.memory.budget' = 'lots' is not a size");
        try (Catalog catalog = Tables.paimonCatalog(warehouse)) {
            assertThat(catalog.listTables("db")).doesNotContain("p", "b", "v", "g");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
