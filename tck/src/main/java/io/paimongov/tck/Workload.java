package io.paimongov.tck;

import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * A random, reproducible write workload on a table {@code (p INT, k INT, v STRING, n BIGINT)},
 * partitioned by {@code p}, of one {@link TableModes table mode}, with its reference model: what the
 * table must hold after a commit. Rows are generated on demand from the seed, so a workload costs no
 * memory until read. On an append table every row is an insert of a key of its own, so the model is
 * the rows themselves and a row read twice shows as {@link #DUPLICATE}.
 *
 * <p>Merge engines: {@code deduplicate} (last row wins; about one row in ten deletes an existing
 * key), {@code partial-update} (non-null fields overwrite), {@code aggregation} ({@code n} summed,
 * {@code v} last non-null).
 */
record Workload(
        long seed, int rows, int keys, int partitions, int buckets, String mergeEngine, String format, int valueBytes,
        TableModes mode) {

    record Value(String v, Long n) {}

    /** A value no row writes: what {@link #read} keeps for a key it met twice (an append table's duplicate). */
    static final Value DUPLICATE = new Value("<the key was read twice>", null);

    /** A workload on a primary-key table of fixed buckets ({@link TableModes#PK}). */
    Workload(long seed, int rows, int keys, int partitions, int buckets, String mergeEngine, String format, int valueBytes) {
        this(seed, rows, keys, partitions, buckets, mergeEngine, format, valueBytes, TableModes.PK);
    }

    /** This workload on a table of {@code mode}; append modes write inserts only, each of a key of its own. */
    Workload in(TableModes mode) {
        return new Workload(seed, rows, keys, partitions, buckets, mode.updates() ? mergeEngine : "deduplicate", format,
                valueBytes, mode);
    }

    Workload {
        if (rows < 1 || keys < 1 || partitions < 1 || buckets < 1 || valueBytes < 1) {
            throw new IllegalArgumentException("a workload needs positive sizes: " + this);
        }
    }

    /** The rows, generated afresh from the seed on every call. */
    Iterable<InternalRow> rowsInOrder() {
        return () -> new Iterator<>() {
            private final Random random = new Random(seed);
            private final Map<Long, Boolean> alive = new HashMap<>();
            private int produced;

            @Override
            public boolean hasNext() {
                return produced < rows;
            }

            @Override
            public InternalRow next() {
                produced++;
                return nextRow(random, alive, produced);
            }
        };
    }

    private InternalRow nextRow(Random random, Map<Long, Boolean> alive, int index) {
        int p = random.nextInt(partitions);
        if (!mode.updates()) {
            return GenericRow.of(p, index, BinaryString.fromString(value(random, index)), (long) random.nextInt(1000));
        }
        int k = random.nextInt(keys);
        long key = key(p, k);
        boolean delete = mergeEngine.equals("deduplicate") && random.nextInt(10) == 0 && alive.containsKey(key);
        if (delete) {
            alive.remove(key);
            return GenericRow.ofKind(RowKind.DELETE, p, k, null, null);
        }
        alive.put(key, true);
        String v = mergeEngine.equals("deduplicate") || random.nextInt(10) >= 3 ? value(random, index) : null;
        Long n = mergeEngine.equals("partial-update") && random.nextInt(10) < 3 ? null : (long) random.nextInt(1000);
        return GenericRow.of(p, k, v == null ? null : BinaryString.fromString(v), n);
    }

    private String value(Random random, int index) {
        StringBuilder sb = new StringBuilder(valueBytes).append(index).append(':');
        while (sb.length() < valueBytes) {
            sb.append((char) ('a' + random.nextInt(26)));
        }
        return sb.toString();
    }

    /** The table content the workload must produce, by {@link #key}. */
    Map<Long, Value> model() {
        Map<Long, Value> model = new HashMap<>();
        for (InternalRow row : rowsInOrder()) {
            long key = key(row.getInt(0), row.getInt(1));
            if (row.getRowKind() == RowKind.DELETE) {
                model.remove(key);
                continue;
            }
            String v = row.isNullAt(2) ? null : row.getString(2).toString();
            Long n = row.isNullAt(3) ? null : row.getLong(3);
            Value old = model.get(key);
            model.put(key, merge(old, v, n));
        }
        return model;
    }

    private Value merge(Value old, String v, Long n) {
        if (old == null || mergeEngine.equals("deduplicate")) {
            return new Value(v, n);
        }
        String mergedV = v != null ? v : old.v();
        Long mergedN;
        if (n == null) {
            mergedN = old.n();
        } else if (mergeEngine.equals("aggregation") && old.n() != null) {
            mergedN = old.n() + n;
        } else {
            mergedN = n;
        }
        return new Value(mergedV, mergedN);
    }

    static long key(int p, int k) {
        return ((long) p << 32) | (k & 0xffffffffL);
    }

    /** Creates the workload's table in a local warehouse at {@code warehouse}. */
    FileStoreTable createTable(Path warehouse, String name) throws Exception {
        try (Catalog catalog =
                CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            catalog.createDatabase("tck", true);
            Schema.Builder schema =
                    Schema.newBuilder()
                            .column("p", DataTypes.INT().notNull())
                            .column("k", DataTypes.INT().notNull())
                            .column("v", DataTypes.STRING())
                            .column("n", DataTypes.BIGINT())
                            .partitionKeys("p")
                            .options(mode.options(buckets))
                            .option("file.format", format);
            if (mode.primaryKey()) {
                schema.primaryKey("p", "k").option("merge-engine", mergeEngine);
            }
            if (mode.primaryKey() && mergeEngine.equals("aggregation")) {
                schema.option("fields.n.aggregate-function", "sum");
                schema.option("fields.v.aggregate-function", "last_non_null_value");
            }
            Identifier id = Identifier.create("tck", name);
            catalog.createTable(id, schema.build(), false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /** What {@code table} holds now, by {@link #key}. */
    static Map<Long, Value> read(FileStoreTable table) throws Exception {
        Map<Long, Value> content = new HashMap<>();
        if (table.snapshotManager().latestSnapshot() == null) {
            return content;
        }
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(
                    row -> {
                        Value value = new Value(
                                row.isNullAt(2) ? null : row.getString(2).toString(), row.isNullAt(3) ? null : row.getLong(3));
                        if (content.putIfAbsent(key(row.getInt(0), row.getInt(1)), value) != null) {
                            content.put(key(row.getInt(0), row.getInt(1)), DUPLICATE);
                        }
                    });
        }
        return content;
    }

    /** A short description for failure messages; the seed reproduces the rows. */
    String describe() {
        return String.format(
                "%s table, %d rows, %d keys, %d partitions, %d buckets, %s, %s, %d-byte values, seed %d",
                mode.label(), rows, keys, partitions, buckets, mergeEngine, format, valueBytes, seed);
    }

    static boolean sameContent(Map<Long, Value> a, Map<Long, Value> b) {
        return Objects.equals(a, b);
    }
}
