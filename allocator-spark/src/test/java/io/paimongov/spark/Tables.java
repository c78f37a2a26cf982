package io.paimongov.spark;

import java.nio.file.Path;
import java.util.List;
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

/** Real Paimon tables on the local file system for the Spark jobs. */
final class Tables {

    private Tables() {}

    /** A primary-key table (p INT, k INT, v STRING), partitioned by p, primary key (p, k), 2 buckets. */
    static FileStoreTable primaryKeyTable(Path warehouse, String name) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(
                CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase("db", true);
            Identifier id = Identifier.create("db", name);
            catalog.createTable(id, Schema.newBuilder()
                    .column("p", DataTypes.INT().notNull())
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .partitionKeys("p")
                    .primaryKey("p", "k")
                    .options(Map.of("bucket", "2", "file.format", "parquet"))
                    .build(), false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /** The table's current content as (p, k) -> v. */
    static Map<List<Integer>, String> read(FileStoreTable table) throws Exception {
        Map<List<Integer>, String> content = new TreeMap<>(Ops::compare);
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> content.put(
                    List.of(row.getInt(0), row.getInt(1)), row.isNullAt(2) ? null : row.getString(2).toString()));
        }
        return content;
    }
}
