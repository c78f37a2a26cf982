package io.paimongov.cli;

import io.paimongov.runtime.tables.DamagedTableException;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.runtime.tables.TableCheck;
import io.paimongov.tck.TableModes;
import java.util.HashMap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * The demo's table, {@value #DATABASE}.{@value #TABLE} in a file-system catalog: {@code (p INT, k
 * INT, v STRING)}, partitioned by {@code p}, in one of the {@link TableModes} ({@code --table}):
 * primary key {@code (p, k)} or none, its bucket layout, and a file format. Paimon's defaults otherwise (deduplicate merge engine: the last row per key wins, a
 * {@code DELETE} removes the key).
 *
 * <p>Stateless; each call opens and closes its own catalog.
 */
final class DemoTable {

    static final String DATABASE = "demo";
    static final String TABLE = "kv";

    private DemoTable() {}

    /**
     * The damage of the demo table's schema files in {@code warehouse}, when one does not parse: then
     * the table cannot be opened at all ({@link TableCheck#verifySchemas}). Empty when they parse or
     * cannot be read for another reason.
     */
    static Optional<DamagedTableException> schemaDamage(Path warehouse) {
        Path dir = warehouse.resolve(DATABASE + ".db").resolve(TABLE);
        try {
            TableCheck.verifySchemas(LocalFileIO.create(), PaimonPaths.of(dir), DATABASE + "." + TABLE);
            return Optional.empty();
        } catch (DamagedTableException damaged) {
            return Optional.of(damaged);
        } catch (IOException | RuntimeException cannotTell) {
            return Optional.empty();
        }
    }

    /** Whether {@code warehouse} already holds the demo table (the file-system catalog's layout). */
    static boolean exists(Path warehouse) {
        return Files.exists(warehouse.resolve(DATABASE + ".db").resolve(TABLE));
    }

    /**
     * The table in {@code warehouse}: created (the warehouse too, if missing) when absent, dropped
     * and created again when {@code replace}, else the existing one, which {@link #difference} has
     * found to be laid out as asked.
     */
    static FileStoreTable openOrCreate(Path warehouse, TableModes mode, int buckets, String format, boolean replace)
            throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(DATABASE, true);
            Identifier id = Identifier.create(DATABASE, TABLE);
            boolean exists = exists(warehouse);
            if (exists && replace) {
                drop(catalog, id, warehouse);
            }
            if (!exists || replace) {
                catalog.createTable(id, schema(mode, buckets, format), false);
            }
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /**
     * Drops the table through the catalog; one whose schema file is damaged cannot be opened, so
     * Paimon cannot drop it, and its directory (which is all a file-system catalog's table is) is
     * deleted instead: {@code --replace} is the way out the damage report offers.
     */
    private static void drop(Catalog catalog, Identifier id, Path warehouse) throws Exception {
        try {
            catalog.dropTable(id, false);
        } catch (Exception e) {
            if (schemaDamage(warehouse).isEmpty()) {
                throw e;
            }
            String failure = ShutdownCleanup.deleteTree(warehouse.resolve(DATABASE + ".db").resolve(TABLE));
            if (failure != null) {
                throw new IOException("cannot delete the damaged table's directory: " + failure, e);
            }
        }
    }

    /** The table in the warehouse at {@code warehouse}. */
    static FileStoreTable open(Path warehouse) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(Identifier.create(DATABASE, TABLE));
        }
    }

    /**
     * The first property in which the table in {@code warehouse} differs from the one this run asks
     * for, as {@code "<property> is <theirs>, this run asks for <ours>"}; empty when it is laid out
     * the same: columns and their types, primary key, partition keys, and the options of the mode
     * ({@code bucket}, {@code bucket-key}, {@code deletion-vectors.enabled}, {@code
     * changelog-producer}) and {@code file.format}.
     */
    static Optional<String> difference(Path warehouse, TableModes mode, int buckets, String format) throws Exception {
        TableSchema wanted = TableSchema.create(0, schema(mode, buckets, format));
        FileStoreTable table;
        try (Catalog catalog = catalog(warehouse)) {
            table = (FileStoreTable) catalog.getTable(Identifier.create(DATABASE, TABLE));
        }
        TableSchema theirs = table.schema();
        if (!theirs.fields().equals(wanted.fields())) {
            return Optional.of("the columns are " + theirs.fields() + ", this run asks for " + wanted.fields());
        }
        if (!theirs.primaryKeys().equals(wanted.primaryKeys())) {
            return Optional.of("the primary key is " + theirs.primaryKeys() + ", this run asks for " + wanted.primaryKeys());
        }
        if (!theirs.partitionKeys().equals(wanted.partitionKeys())) {
            return Optional.of("the partition keys are " + theirs.partitionKeys() + ", this run asks for "
                    + wanted.partitionKeys());
        }
        Map<String, String> options = new TreeMap<>(wanted.options());
        for (String key : MODE_OPTIONS) {
            options.putIfAbsent(key, null);
        }
        for (Map.Entry<String, String> e : options.entrySet()) {
            String have = theirs.options().get(e.getKey());
            if (!Objects.equals(have, e.getValue())) {
                return Optional.of("'" + e.getKey() + "' is " + (have == null ? "not set" : "'" + have + "'")
                        + ", this run asks for " + (e.getValue() == null ? "it not set" : "'" + e.getValue() + "'"));
            }
        }
        return Optional.empty();
    }

    /** Options some mode sets: a table that has one this run's mode does not set differs. */
    private static final List<String> MODE_OPTIONS =
            List.of("bucket", "bucket-key", "deletion-vectors.enabled", "changelog-producer", "file.format");

    private static Schema schema(TableModes mode, int buckets, String format) {
        Map<String, String> options = new HashMap<>(mode.options(buckets));
        options.put("file.format", format);
        Schema.Builder builder =
                Schema.newBuilder()
                        .column("p", DataTypes.INT().notNull())
                        .column("k", DataTypes.INT().notNull())
                        .column("v", DataTypes.STRING())
                        .partitionKeys("p")
                        .options(options);
        if (mode.primaryKey()) {
            builder.primaryKey("p", "k");
        }
        return builder.build();
    }

    private static Catalog catalog(Path warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)));
    }

    /**
     * Streams the table's current content to {@code action}, one row at a time (the reader may
     * reuse row objects). A table without a snapshot has no splits and gives no rows.
     */
    static void forEachRow(FileStoreTable table, Consumer<InternalRow> action) throws IOException {
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(action);
        }
    }
}
