package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.spark.LocalSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables written by plain Paimon (paimon-bundle's {@code BatchWriteBuilder}, rows bucketed the way
 * Paimon's own writers bucket them: its bucket function for fixed buckets, its {@code
 * HashBucketAssigner} for dynamic ones) and by the catalog, in turns on the same table: each reads
 * what the other wrote, an update from either lands in the bucket the key already has, and for
 * fixed buckets every key of every file is in the bucket Paimon's bucket function gives it.
 */
class InteropTest {

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "interop", warehouse, Map.of());
    }

    @Test
    void fixedBuckets() throws Exception {
        FileStoreTable table = create("fixed", Map.of("bucket", "3"), true);
        Map<String, String> model = new TreeMap<>();

        writeWithPaimon(table, 0, 600, "paimon1", null);
        fold(model, 0, 600, "paimon1");
        assertThat(Tables.query(spark, "SELECT * FROM interop.db.fixed")).isEqualTo(rows(model));

        spark.sql("INSERT INTO interop.db.fixed SELECT CAST(id AS INT), concat('spark-', id), concat('p', id % 3)"
                + " FROM range(300, 900)");
        fold(model, 300, 900, "spark");
        table = Tables.paimon(warehouse, "db", "fixed");
        assertThat(Tables.readPaimon(table)).isEqualTo(rows(model));
        assertEveryRowInPaimonsBucket(table);

        writeWithPaimon(table, 800, 1000, "paimon2", null);
        fold(model, 800, 1000, "paimon2");
        assertThat(Tables.query(spark, "SELECT * FROM interop.db.fixed")).isEqualTo(rows(model));
        assertEveryRowInPaimonsBucket(Tables.paimon(warehouse, "db", "fixed"));
    }

    @Test
    void dynamicBuckets() throws Exception {
        FileStoreTable table = create("dynamic", Map.of("bucket", "-1", "dynamic-bucket.target-row-num", "50"), true);
        Map<String, String> model = new TreeMap<>();

        writeWithPaimon(table, 0, 600, "paimon1", table.coreOptions());
        fold(model, 0, 600, "paimon1");
        Map<String, List<Integer>> paimonBuckets = Tables.bucketsOfKeys(Tables.paimon(warehouse, "db", "dynamic"), 0, 2);
        assertThat(Tables.query(spark, "SELECT * FROM interop.db.dynamic")).isEqualTo(rows(model));

        spark.sql("INSERT INTO interop.db.dynamic SELECT CAST(id AS INT), concat('spark-', id), concat('p', id % 3)"
                + " FROM range(300, 900)");
        fold(model, 300, 900, "spark");
        table = Tables.paimon(warehouse, "db", "dynamic");
        assertThat(Tables.readPaimon(table)).isEqualTo(rows(model));
        Map<String, List<Integer>> afterSpark = Tables.bucketsOfKeys(table, 0, 2);
        afterSpark.forEach((key, buckets) -> assertThat(buckets).as("buckets of key %s", key).hasSize(1));
        paimonBuckets.forEach((key, buckets) -> assertThat(afterSpark.get(key)).as("bucket of key %s", key).isEqualTo(buckets));

        writeWithPaimon(table, 800, 1000, "paimon2", table.coreOptions());
        fold(model, 800, 1000, "paimon2");
        table = Tables.paimon(warehouse, "db", "dynamic");
        assertThat(Tables.query(spark, "SELECT * FROM interop.db.dynamic")).isEqualTo(rows(model));
        Map<String, List<Integer>> afterPaimon = Tables.bucketsOfKeys(table, 0, 2);
        afterPaimon.forEach((key, buckets) -> assertThat(buckets).as("buckets of key %s", key).hasSize(1));
        afterSpark.forEach((key, buckets) -> assertThat(afterPaimon.get(key)).as("bucket of key %s", key).isEqualTo(buckets));
    }

    @Test
    void appendTables() throws Exception {
        FileStoreTable table = create("log", Map.of("bucket", "-1"), false);
        writeWithPaimon(table, 0, 100, "paimon", null);
        spark.sql("INSERT INTO interop.db.log SELECT CAST(id AS INT), concat('spark-', id), concat('p', id % 3) FROM range(50, 150)");
        List<String> expected = new ArrayList<>();
        for (int id = 0; id < 100; id++) {
            expected.add(id + "|paimon-" + id + "|p" + id % 3);
        }
        for (int id = 50; id < 150; id++) {
            expected.add(id + "|spark-" + id + "|p" + id % 3);
        }
        expected.sort(null);
        assertThat(Tables.query(spark, "SELECT * FROM interop.db.log")).isEqualTo(expected);
        assertThat(Tables.readPaimon(Tables.paimon(warehouse, "db", "log"))).isEqualTo(expected);
    }

    /** (k INT, v STRING, d STRING) partitioned by d, primary key (k, d) or none, made by Paimon's own catalog. */
    private static FileStoreTable create(String name, Map<String, String> options, boolean primaryKey) throws Exception {
        try (Catalog catalog = Tables.paimonCatalog(warehouse)) {
            catalog.createDatabase("db", true);
            Schema.Builder schema = Schema.newBuilder()
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .column("d", DataTypes.STRING().notNull())
                    .partitionKeys("d")
                    .options(options);
            if (primaryKey) {
                schema.primaryKey("k", "d");
            }
            catalog.createTable(Identifier.create("db", name), schema.build(), false);
        }
        return Tables.paimon(warehouse, "db", name);
    }

    /**
     * Rows {@code (id, '<tag>-id', 'p' + id % 3)} for ids in [from, to), written and committed by
     * Paimon's batch writer; with {@code dynamic} options, each row's bucket from Paimon's {@code
     * HashBucketAssigner} (one assigner, loading the table's key index), as Paimon's own writers do.
     */
    private static void writeWithPaimon(FileStoreTable table, int from, int to, String tag, CoreOptions dynamic)
            throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        String user = UUID.randomUUID().toString();
        HashBucketAssigner assigner = dynamic == null ? null : new HashBucketAssigner(table.snapshotManager(), user,
                table.store().newIndexFileHandler(), 1, 1, 0, dynamic.dynamicBucketTargetRowNum(), -1);
        RowKeyExtractor keys = table.createRowKeyExtractor();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            for (int id = from; id < to; id++) {
                GenericRow row = GenericRow.of(id, BinaryString.fromString(tag + "-" + id), BinaryString.fromString("p" + id % 3));
                if (assigner == null) {
                    write.write(row);
                } else {
                    keys.setRecord(row);
                    write.write(row, assigner.assign(keys.partition(), keys.trimmedPrimaryKey().hashCode()));
                }
            }
            commit.commit(write.prepareCommit());
        }
    }

    private static void fold(Map<String, String> model, int from, int to, String tag) {
        for (int id = from; id < to; id++) {
            model.put(id + "/" + id % 3, id + "|" + tag + "-" + id + "|p" + id % 3);
        }
    }

    private static List<String> rows(Map<String, String> model) {
        List<String> rows = new ArrayList<>(model.values());
        rows.sort(null);
        return rows;
    }

    /** Every row of every split of the latest snapshot is in the bucket Paimon's bucket function gives its key. */
    private static void assertEveryRowInPaimonsBucket(FileStoreTable table) throws Exception {
        ReadBuilder builder = table.newReadBuilder();
        RowKeyExtractor keys = table.createRowKeyExtractor();
        AtomicInteger rows = new AtomicInteger();
        for (Split split : builder.newScan().plan().splits()) {
            DataSplit data = (DataSplit) split;
            try (RecordReader<InternalRow> reader = builder.newRead().createReader(data)) {
                reader.forEachRemaining(row -> {
                    keys.setRecord(row);
                    assertThat(keys.bucket()).as("bucket of key %d in %s", row.getInt(0), data.partition()).isEqualTo(data.bucket());
                    rows.incrementAndGet();
                });
            }
        }
        assertThat(rows.get()).isPositive();
    }
}
