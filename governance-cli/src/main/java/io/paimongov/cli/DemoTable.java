package io.paimongov.cli;

import io.paimongov.tck.TableModes;
import java.util.HashMap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
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

    /** Whether {@code warehouse} already holds the demo table (the file-system catalog's layout). */
    static boolean exists(Path warehouse) {
        return Files.exists(warehouse.resolve(DATABASE + ".db").resolve(TABLE));
    }

    /** Creates the table in {@code warehouse} (created if missing) and returns it. */
    static FileStoreTable create(Path warehouse, TableModes mode, int buckets, String format) throws Exception {
        CatalogContext context = CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString()));
        try (Catalog catalog = CatalogFactory.createCatalog(context)) {
            catalog.createDatabase(DATABASE, true);
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
            Schema schema = builder.build();
            Identifier id = Identifier.create(DATABASE, TABLE);
            catalog.createTable(id, schema, false);
            return (FileStoreTable) catalog.getTable(id);
        }
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
