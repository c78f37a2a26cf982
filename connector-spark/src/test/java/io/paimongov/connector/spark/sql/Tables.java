package io.paimongov.connector.spark.sql;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the catalog's tests read to compare with their models, with nothing of the code under test:
 * a warehouse's tables through Paimon's own catalog and reader, and Spark query results, both as
 * sorted lists of {@code a|b|c} strings.
 */
final class Tables {

    private Tables() {}

    /** Registers catalog {@code name} (class {@link GovernedSparkCatalog}) over {@code warehouse} with {@code options}. */
    static void register(SparkSession spark, String name, Path warehouse, Map<String, String> options) {
        spark.conf().set("spark.sql.catalog." + name, GovernedSparkCatalog.class.getName());
        spark.conf().set("spark.sql.catalog." + name + ".warehouse", warehouse.toUri().toString());
        options.forEach((k, v) -> spark.conf().set("spark.sql.catalog." + name + "." + k, v));
    }

    /** Paimon's own catalog over {@code warehouse}. */
    static Catalog paimonCatalog(Path warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri())));
    }

    /** Table {@code db.name} of {@code warehouse}, loaded by Paimon's own catalog. */
    static FileStoreTable paimon(Path warehouse, String db, String name) throws Exception {
        try (Catalog catalog = paimonCatalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(Identifier.create(db, name));
        }
    }

    /** Every row Paimon's own batch read gives, as sorted strings. */
    static List<String> readPaimon(Table table) throws IOException {
        ReadBuilder builder = table.newReadBuilder();
        return read(builder, builder.newScan().plan().splits());
    }

    /** The rows of {@code splits} as Paimon's own read gives them, as sorted strings. */
    static List<String> read(ReadBuilder builder, List<? extends Split> splits) throws IOException {
        RowType type = builder.readType();
        List<InternalRow.FieldGetter> getters = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
            getters.add(InternalRow.createFieldGetter(type.getTypeAt(i), i));
        }
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(new ArrayList<>(splits))) {
            reader.forEachRemaining(row -> rows.add(getters.stream()
                    .map(g -> String.valueOf(g.getFieldOrNull(row)))
                    .collect(Collectors.joining("|"))));
        }
        rows.sort(null);
        return rows;
    }

    /** The rows of a Spark query, as sorted strings. */
    static List<String> query(SparkSession spark, String sql) {
        List<String> rows = new ArrayList<>();
        for (Row row : spark.sql(sql).collectAsList()) {
            rows.add(row(row));
        }
        rows.sort(null);
        return rows;
    }

    static String row(Row row) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < row.length(); i++) {
            values.add(String.valueOf(row.get(i)));
        }
        return String.join("|", values);
    }

    /** Data files and their bytes. */
    record Files(long count, long bytes) {}

    /**
     * The data files the snapshots after {@code afterSnapshot} (null: every snapshot) added, as
     * Paimon's delta manifests list them ({@code ADD} entries; a compaction's outputs included).
     */
    static Files added(FileStoreTable table, Long afterSnapshot) throws IOException {
        ManifestList lists = table.store().manifestListFactory().create();
        ManifestFile manifests = table.store().manifestFileFactory().create();
        long count = 0;
        long bytes = 0;
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            if (afterSnapshot != null && s.id() <= afterSnapshot) {
                continue;
            }
            for (ManifestFileMeta meta : lists.readDeltaManifests(s)) {
                for (ManifestEntry e : manifests.read(meta.fileName(), meta.fileSize())) {
                    if (e.kind() == FileKind.ADD) {
                        count++;
                        bytes += e.file().fileSize();
                    }
                }
            }
        }
        return new Files(count, bytes);
    }

    /**
     * For every data split of the latest snapshot, the bucket of each of its rows' key (the row
     * projected to {@code keyFields}): key to the set of buckets that hold it.
     */
    static Map<String, List<Integer>> bucketsOfKeys(FileStoreTable table, int... keyFields) throws IOException {
        Map<String, List<Integer>> buckets = new HashMap<>();
        ReadBuilder builder = table.newReadBuilder();
        for (Split split : builder.newScan().plan().splits()) {
            DataSplit data = (DataSplit) split;
            List<InternalRow.FieldGetter> getters = new ArrayList<>();
            for (int field : keyFields) {
                getters.add(InternalRow.createFieldGetter(table.rowType().getTypeAt(field), field));
            }
            try (RecordReader<InternalRow> reader = builder.newRead().createReader(data)) {
                reader.forEachRemaining(row -> {
                    String key = getters.stream().map(g -> String.valueOf(g.getFieldOrNull(row))).collect(Collectors.joining("|"));
                    buckets.computeIfAbsent(key, k -> new ArrayList<>()).add(data.bucket());
                });
            }
        }
        return buckets;
    }
}
