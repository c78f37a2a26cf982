package io.paimongov.benchmarks;

import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
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
import org.apache.paimon.utils.FileIOUtils;

/**
 * What the end-to-end measures share: the table {@code bench.t (k INT, v STRING)} in a local
 * file-system warehouse, a seeded row generator, governed writes on the heap provider, and the
 * file and statistics helpers. One place, so every measure writes the same kind of table.
 *
 * <p>Stateless apart from {@link Rows}; the static methods are thread-safe.
 */
public final class BenchTables {

    static final String DATABASE = "bench";
    static final String TABLE = "t";

    private BenchTables() {}

    /**
     * The shape of the benchmark table.
     *
     * @param primaryKey a primary key on {@code k} (a merge-tree table) or an append table with
     *     bucket key {@code k}
     * @param buckets fixed buckets
     * @param format {@code parquet}, {@code orc} or {@code avro}
     * @param options further table options
     */
    public record Shape(boolean primaryKey, int buckets, String format, Map<String, String> options) {

        /** A primary-key Parquet table of {@code buckets} buckets. */
        public static Shape primaryKey(int buckets) {
            return new Shape(true, buckets, "parquet", Map.of());
        }

        /** An append Parquet table of {@code buckets} buckets, bucket key {@code k}. */
        public static Shape append(int buckets) {
            return new Shape(false, buckets, "parquet", Map.of());
        }

        /** This shape with one more table option. */
        public Shape with(String key, String value) {
            Map<String, String> more = new HashMap<>(options);
            more.put(key, value);
            return new Shape(primaryKey, buckets, format, more);
        }
    }

    /** Creates the table in {@code warehouse} (the directory is created if missing) and returns it. */
    public static FileStoreTable create(Path warehouse, Shape shape) throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("k", DataTypes.INT().notNull())
                        .column("v", DataTypes.STRING())
                        .option("bucket", Integer.toString(shape.buckets()))
                        .option("file.format", shape.format());
        if (shape.primaryKey()) {
            schema.primaryKey("k");
        } else {
            schema.option("bucket-key", "k");
        }
        shape.options().forEach(schema::option);
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(DATABASE, true);
            catalog.createTable(Identifier.create(DATABASE, TABLE), schema.build(), false);
        }
        return table(warehouse);
    }

    /** The table of an existing warehouse. */
    public static FileStoreTable table(Path warehouse) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(Identifier.create(DATABASE, TABLE));
        }
    }

    private static Catalog catalog(Path warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)));
    }

    /**
     * Opens a context on the heap provider with a budget of {@code budgetBytes}, spill scopes under
     * {@code spillDir} and the further governance options {@code more}, and a batch write of {@code
     * table} over it. The write owns the context.
     */
    public static GovernedTableWrite governedWrite(FileStoreTable table, String name, long budgetBytes, Path spillDir, Map<String, String> more) {
        return governedWrite(table, name, new HeapGovernanceProvider(), EngineEnvironment.standalone(), budgetBytes, spillDir, more);
    }

    /**
     * Opens a context on {@code provider} over the engine objects of {@code environment} (a
     * standalone engine's, for the other providers), otherwise as {@link #governedWrite(FileStoreTable,
     * String, long, Path, Map)}. The write owns the context, not the engine.
     */
    public static GovernedTableWrite governedWrite(FileStoreTable table, String name, GovernanceProvider provider,
            EngineEnvironment environment, long budgetBytes, Path spillDir, Map<String, String> more) {
        Map<String, String> values = new HashMap<>(more);
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(budgetBytes));
        values.put(GovernanceOptions.SPILL_DIRS, spillDir.toString());
        ResourceContext context = ResourceContext.open(name, provider, GovernanceOptions.of(values), environment);
        return GovernedTableWrite.batch(table, context);
    }

    /**
     * Seeded rows {@code (k, v)}: {@code k} uniform in {@code [0, keys)}, {@code v} {@code valueBytes}
     * random lower-case letters (they compress to about 5 bits a byte, as real text does not quite).
     * The same seed gives the same rows. Not thread-safe: one generator per writing thread.
     */
    public static final class Rows {
        private final SplittableRandom random;
        private final int keys;
        private final byte[] value;

        public Rows(long seed, int keys, int valueBytes) {
            this.random = new SplittableRandom(seed);
            this.keys = keys;
            this.value = new byte[valueBytes];
        }

        /** The next row; a new object every call (Paimon may keep it in a buffer until it is copied). */
        public GenericRow next() {
            int i = 0;
            while (i < value.length) {
                long bits = random.nextLong();
                for (int j = 0; j < 12 && i < value.length; j++, bits >>>= 5) {
                    value[i++] = (byte) ('a' + (int) ((bits & 31) % 26));
                }
            }
            return GenericRow.of(random.nextInt(keys), BinaryString.fromBytes(value.clone()));
        }

        /**
         * The size of {@code rows} such rows in Paimon's binary row format (every row has the same
         * size): what a write's {@code inputBytes} counts, computed from the rows alone.
         */
        public static long binaryBytes(int rows, int valueBytes) {
            GenericRow row = GenericRow.of(0, BinaryString.fromString("a".repeat(valueBytes)));
            return rows * (long) new InternalRowSerializer(RowType.of(DataTypes.INT(), DataTypes.STRING())).toBinaryRow(row).getSizeInBytes();
        }
    }

    /** The median; the mean of the middle two for an even count. */
    public static long median(List<Long> values) {
        List<Long> sorted = sorted(values);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The {@code p}-th percentile by nearest rank (the smallest value with at least p% at or below it). */
    public static long percentile(List<Long> values, double p) {
        List<Long> sorted = sorted(values);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static List<Long> sorted(List<Long> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        return sorted;
    }

    /** {@code value} rounded to two decimals, as the reports give ratios. */
    public static double round2(double value) {
        return Math.round(value * 100) / 100.0;
    }

    /** Copies the tree at {@code from} to {@code to}. */
    public static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /**
     * Deletes {@code root} and everything under it; nothing when it does not exist. Best effort, as
     * a measurement's clean-up should be: what cannot be deleted stays (Paimon's own helper).
     */
    public static void deleteTree(Path root) {
        FileIOUtils.deleteDirectoryQuietly(root.toFile());
    }
}
