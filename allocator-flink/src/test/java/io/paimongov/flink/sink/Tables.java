package io.paimongov.flink.sink;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

/** Real Paimon tables on the local file system, a deterministic workload and its reference model. */
final class Tables {

    private Tables() {}

    /** A primary-key table (p INT, k INT, v STRING), partitioned by p, primary key (p, k). */
    static FileStoreTable primaryKeyTable(Path warehouse, int buckets) throws Exception {
        try (Catalog catalog =
                CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase("db", true);
            Schema schema =
                    Schema.newBuilder()
                            .column("p", DataTypes.INT().notNull())
                            .column("k", DataTypes.INT().notNull())
                            .column("v", DataTypes.STRING())
                            .partitionKeys("p")
                            .primaryKey("p", "k")
                            .options(Map.of("bucket", Integer.toString(buckets), "file.format", "avro"))
                            .build();
            Identifier id = Identifier.create("db", "t");
            catalog.createTable(id, schema, false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /** Changes with duplicate keys and deletes of present keys, and the table they must give. */
    record Workload(List<Change> changes, Map<List<Integer>, String> expected) {

        static Workload of(long seed, int rows, int keys, int valueBytes) {
            Random random = new Random(seed);
            List<Change> out = new ArrayList<>(rows);
            Map<List<Integer>, String> model = new TreeMap<>(Tables::compare);
            for (int i = 0; i < rows; i++) {
                int p = random.nextInt(2);
                int k = random.nextInt(keys);
                List<Integer> key = List.of(p, k);
                if (random.nextInt(10) == 0 && model.containsKey(key)) {
                    out.add(new Change(p, k, null, true));
                    model.remove(key);
                } else {
                    String v = value(random, i, valueBytes);
                    out.add(new Change(p, k, v, false));
                    model.put(key, v);
                }
            }
            return new Workload(out, model);
        }
    }

    static String value(Random random, int i, int bytes) {
        StringBuilder sb = new StringBuilder(bytes).append(i).append(':');
        while (sb.length() < bytes) {
            sb.append((char) ('a' + random.nextInt(26)));
        }
        return sb.toString();
    }

    private static int compare(List<Integer> a, List<Integer> b) {
        int c = Integer.compare(a.get(0), b.get(0));
        return c != 0 ? c : Integer.compare(a.get(1), b.get(1));
    }

    /** The table's current content as (p, k) -> v. */
    static Map<List<Integer>, String> read(FileStoreTable table) throws Exception {
        Map<List<Integer>, String> content = new TreeMap<>(Tables::compare);
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> content.put(List.of(row.getInt(0), row.getInt(1)), row.getString(2).toString()));
        }
        return content;
    }
}
