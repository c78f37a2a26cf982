package io.paimongov.runtime.write;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
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

/** Real Paimon tables for the write package's tests: made in a local warehouse, read back as key to value. */
final class KeyValueTables {

    private KeyValueTables() {}

    /** Creates table {@code db.t} of {@code schema} in the warehouse at {@code warehouse} (created if missing). */
    static FileStoreTable create(Path warehouse, Schema schema) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase("db", true);
            Identifier id = Identifier.create("db", "t");
            catalog.createTable(id, schema, true);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /**
     * The schema of a one-bucket primary-key table {@code (k INT NOT NULL, v STRING)}, keyed by
     * {@code k}, for the caller to add options to.
     */
    static Schema.Builder oneBucketKeyValue() {
        return Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("k")
                .option("bucket", "1");
    }

    /** Every row of {@code table}: its INT field 0 to its STRING field {@code valueField}. */
    static Map<Integer, String> read(FileStoreTable table, int valueField) throws Exception {
        ReadBuilder rb = table.newReadBuilder();
        Map<Integer, String> out = new TreeMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> out.put(row.getInt(0), row.getString(valueField).toString()));
        }
        return out;
    }
}
