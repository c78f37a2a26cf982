package io.paimongov.offheap;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
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

/** Real Paimon tables on the local file system, a random workload and its reference model. */
final class TestTables {

    private TestTables() {}

    /** A primary-key table (p INT, k INT, v STRING), partitioned by p, primary key (p, k). */
    static FileStoreTable primaryKeyTable(Path warehouse, String name, int buckets, String format)
            throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put("bucket", Integer.toString(buckets));
        options.put("file.format", format);
        return createTable(warehouse, name, options, true);
    }

    static FileStoreTable createTable(Path warehouse, String name, Map<String, String> options, boolean primaryKey)
            throws Exception {
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase("db", true);
            Schema.Builder schema =
                    Schema.newBuilder()
                            .column("p", DataTypes.INT().notNull())
                            .column("k", DataTypes.INT().notNull())
                            .column("v", DataTypes.STRING())
                            .partitionKeys("p")
                            .options(options);
            if (primaryKey) {
                schema.primaryKey("p", "k");
            }
            Identifier id = Identifier.create("db", name);
            catalog.createTable(id, schema.build(), false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /** Rows with duplicate keys and some deletes, and the table content they must give. */
    record Workload(List<InternalRow> rows, Map<List<Integer>, String> expected) {

        static Workload random(long seed, int rows, int keys, int partitions, int valueBytes) {
            Random random = new Random(seed);
            List<InternalRow> out = new ArrayList<>(rows);
            Map<List<Integer>, String> model = new TreeMap<>(TestTables::compare);
            for (int i = 0; i < rows; i++) {
                int p = random.nextInt(partitions);
                int k = random.nextInt(keys);
                List<Integer> key = List.of(p, k);
                if (random.nextInt(10) == 0 && model.containsKey(key)) {
                    out.add(GenericRow.ofKind(RowKind.DELETE, p, k, null));
                    model.remove(key);
                } else {
                    String v = value(random, i, valueBytes);
                    out.add(GenericRow.of(p, k, BinaryString.fromString(v)));
                    model.put(key, v);
                }
            }
            return new Workload(out, model);
        }

        private static String value(Random random, int i, int bytes) {
            StringBuilder sb = new StringBuilder(bytes).append(i).append(':');
            while (sb.length() < bytes) {
                sb.append((char) ('a' + random.nextInt(26)));
            }
            return sb.toString();
        }
    }

    private static int compare(List<Integer> a, List<Integer> b) {
        int c = Integer.compare(a.get(0), b.get(0));
        return c != 0 ? c : Integer.compare(a.get(1), b.get(1));
    }

    /** The table's current content as (p, k) -> v. */
    static Map<List<Integer>, String> read(FileStoreTable table) throws Exception {
        Map<List<Integer>, String> content = new TreeMap<>(TestTables::compare);
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader =
                builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(
                    row ->
                            content.put(
                                    List.of(row.getInt(0), row.getInt(1)),
                                    row.isNullAt(2) ? null : row.getString(2).toString()));
        }
        return content;
    }
}
