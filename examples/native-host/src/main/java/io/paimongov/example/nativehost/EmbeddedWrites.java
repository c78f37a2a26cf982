package io.paimongov.example.nativehost;

import io.paimongov.nativehost.NativeGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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

/**
 * The Java side of the embedding example (src/main/c/embed_host.c): what a native engine's JNI
 * glue calls to write a Paimon table under its own memory tracker and cancel. One static method;
 * the host attached its tracker with {@code pg_attach} first and names it here.
 *
 * <p>Stateless; any thread attached to the JVM.
 */
public final class EmbeddedWrites {

    /** {@link #write}'s outcome codes, at index 0 of its answer. */
    public static final long COMMITTED = 0;
    public static final long CANCELLED = 1;
    public static final long FAILED = 2;

    private EmbeddedWrites() {}

    /**
     * Creates {@code db.<table>} (primary key {@code id}, 2 buckets) in the warehouse and writes
     * {@code rows} rows (or, with {@code rows} below 0, rows until the write is cancelled) of about
     * {@code valueBytes} bytes each through a governed write on the native host attached as {@code
     * host}, with a budget of {@code budget}; commits when all were written, then reads the table
     * back. What went wrong is printed to stderr.
     *
     * @return {outcome ({@link #COMMITTED}, {@link #CANCELLED} or {@link #FAILED}), rows written,
     *     rows read back, snapshots of the table, spill bytes, peak reserved bytes}
     */
    public static long[] write(String warehouse, String table, String host, long rows, int valueBytes, String budget) {
        long written = 0;
        long outcome;
        MetricsSnapshot metrics = null;
        FileStoreTable t = null;
        try {
            t = create(warehouse, table);
            GovernanceOptions options = GovernanceOptions.of(Map.of(
                    GovernanceOptions.PROVIDER, NativeGovernanceProvider.NAME,
                    NativeGovernanceProvider.HOST_KEY, host,
                    GovernanceOptions.MEMORY_BUDGET, budget,
                    GovernanceOptions.SPILL_DIRS, Files.createDirectories(Path.of(warehouse, "spill-" + table)).toString()));
            ResourceContext context = ResourceContext.open("native-example-" + table, options, EngineEnvironment.standalone());
            String pad = "x".repeat(Math.max(0, valueBytes));
            try (GovernedTableWrite write = GovernedTableWrite.batch(t, context)) {
                for (long i = 0; rows < 0 || i < rows; i++) {
                    write.write(GenericRow.of(i, BinaryString.fromString(i + pad)));
                    written++;
                }
                write.prepareCommit().commit();
                outcome = COMMITTED;
            } catch (WriteCancelledException e) {
                outcome = CANCELLED;
            } finally {
                metrics = context.snapshot();
            }
        } catch (Exception | Error e) {
            e.printStackTrace();
            outcome = FAILED;
        }
        long readBack = -1;
        long snapshots = -1;
        try {
            if (t != null) {
                t = open(warehouse, table);
                snapshots = t.snapshotManager().snapshotCount();
                readBack = count(t);
            }
        } catch (Exception e) {
            e.printStackTrace();
        }
        return new long[] {
            outcome, written, readBack, snapshots,
            metrics == null ? -1 : metrics.spillBytes(), metrics == null ? -1 : metrics.peakReservedBytes()
        };
    }

    private static Catalog catalog(String warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(PaimonPaths.option(Path.of(warehouse)))));
    }

    private static FileStoreTable create(String warehouse, String table) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase("db", true);
            Schema schema = Schema.newBuilder()
                    .column("id", DataTypes.BIGINT().notNull())
                    .column("v", DataTypes.STRING())
                    .primaryKey("id")
                    .option("bucket", "2")
                    .build();
            catalog.createTable(Identifier.create("db", table), schema, false);
        }
        return open(warehouse, table);
    }

    private static FileStoreTable open(String warehouse, String table) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(Identifier.create("db", table));
        }
    }

    /** Rows at the table's latest snapshot, by a fresh reader; 0 without a snapshot. */
    private static long count(FileStoreTable table) throws Exception {
        ReadBuilder builder = table.newReadBuilder();
        long[] n = {0};
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> n[0]++);
        }
        return n[0];
    }
}
