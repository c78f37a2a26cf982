package io.paimongov.benchmarks.scale;

import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * One cell of the writer-count grid: the table {@code scale.t (p INT, k INT, v STRING)}
 * partitioned by {@code p}, laid out for {@code writers} (partition, bucket) writers by {@code
 * table}, in {@code format}, and the workload written into it. Rows go uniformly at random over
 * every writer ({@link ScaleRows}), the worst case for memory: every writer stays busy to the end.
 *
 * @param table the table kind, which lays out the writers
 * @param format {@code parquet}, {@code orc} or {@code avro}
 * @param writers (partition, bucket) writers the rows spread over
 * @param rows rows written
 * @param rowBytes bytes of each row's string value {@code v}
 * @param budgetBytes the governed write's budget, and plain Paimon's {@code write-buffer-size}
 *
 * <p>Immutable.
 */
public record ScaleCell(ScaleTable table, String format, int writers, int rows, int rowBytes, long budgetBytes) {

    static final String DATABASE = "scale";
    static final String TABLE = "t";
    static final RowType ROW_TYPE = RowType.of(DataTypes.INT().notNull(), DataTypes.INT().notNull(), DataTypes.STRING());
    /** The formats Paimon 1.4.2 writes. */
    public static final List<String> FORMATS = List.of("parquet", "orc", "avro");

    /** @throws IllegalArgumentException naming the option of a value out of range */
    public ScaleCell {
        table.check(writers);
        if (!FORMATS.contains(format)) {
            throw new IllegalArgumentException("--formats: unknown format '" + format + "'; the formats are " + String.join(", ", FORMATS));
        }
        if (rows < 1) {
            throw new IllegalArgumentException("--rows must be at least 1, not " + rows);
        }
        if (rowBytes < 0) {
            throw new IllegalArgumentException("--row-bytes must not be negative, not " + rowBytes);
        }
        if (budgetBytes < 1) {
            throw new IllegalArgumentException("--budget must be positive, not " + budgetBytes);
        }
    }

    /** Partitions of the table. */
    public int partitions() {
        return table.partitions(writers);
    }

    /**
     * Keys of each partition: as many as the partition's share of the rows, so that about 37% of a
     * primary-key table's rows update a key written before (1/e of uniform draws repeat).
     */
    public int keysPerPartition() {
        return Math.max(1, rows / partitions());
    }

    /**
     * {@code dynamic-bucket.target-row-num} of a {@link ScaleTable#PK_DYNAMIC} table: the expected
     * distinct keys of a partition over 8, rounded up, so that Paimon's bucket assigner, which fills
     * a bucket up to this many keys before it opens the next, gives each partition about 8 buckets.
     */
    public long dynamicTargetRows() {
        double keys = keysPerPartition();
        double draws = (double) rows / partitions();
        double distinct = keys * (1 - Math.pow(1 - 1 / keys, draws));
        return Math.max(1, (long) Math.ceil(distinct / ScaleTable.BUCKETS));
    }

    /** Bytes of one row in Paimon's binary row format (every row has the same size). */
    public long rowBinaryBytes() {
        GenericRow row = GenericRow.of(0, 0, BinaryString.fromString("a".repeat(rowBytes)));
        return new InternalRowSerializer(ROW_TYPE).toBinaryRow(row).getSizeInBytes();
    }

    /** The input in Paimon's binary row format: what the governed write's {@code inputBytes} counts. */
    public long inputBytes() {
        return rows * rowBinaryBytes();
    }

    /** This cell with another budget. */
    public ScaleCell withBudget(long bytes) {
        return new ScaleCell(table, format, writers, rows, rowBytes, bytes);
    }

    /** Creates the table in {@code warehouse} (created if missing) and returns it. */
    public FileStoreTable create(Path warehouse) throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("p", DataTypes.INT().notNull())
                        .column("k", DataTypes.INT().notNull())
                        .column("v", DataTypes.STRING())
                        .partitionKeys("p")
                        .option(CoreOptions.BUCKET.key(), Integer.toString(table.bucketOption()))
                        .option(CoreOptions.FILE_FORMAT.key(), format);
        if (table.primaryKey()) {
            schema.primaryKey("p", "k");
        }
        if (table == ScaleTable.PK_DYNAMIC) {
            schema.option(CoreOptions.DYNAMIC_BUCKET_TARGET_ROW_NUM.key(), Long.toString(dynamicTargetRows()));
        }
        if (table == ScaleTable.PK_DV) {
            schema.option(CoreOptions.DELETION_VECTORS_ENABLED.key(), "true");
        }
        Identifier id = Identifier.create(DATABASE, TABLE);
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            catalog.createDatabase(DATABASE, true);
            catalog.createTable(id, schema.build(), false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /** The cell as command-line arguments of {@link ScaleChild}; {@link #parse} reads them back. */
    List<String> args() {
        return List.of(table.label(), format, Integer.toString(writers), Integer.toString(rows), Integer.toString(rowBytes),
                Long.toString(budgetBytes));
    }

    /** The cell from {@code args[from..from+5]} as {@link #args} wrote them. */
    static ScaleCell parse(String[] args, int from) {
        return new ScaleCell(ScaleTable.of(args[from]), args[from + 1], Integer.parseInt(args[from + 2]), Integer.parseInt(args[from + 3]),
                Integer.parseInt(args[from + 4]), Long.parseLong(args[from + 5]));
    }

    /** Number of arguments {@link #args} gives. */
    static final int ARGS = 6;

    /** The name progress lines use, e.g. {@code pk parquet 2048 writers}. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s %s %,d writers", table.label(), format, writers);
    }
}
