package io.paimongov.tck;

import io.paimongov.runtime.tables.PaimonPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * A primary-key table of many overlapping sorted runs, the shape a merge-on-read holds one reader
 * per run for, written by plain Paimon without compaction ({@code write-only}), one commit per run,
 * and its model. The table is {@code (k INT NOT NULL, v STRING, n BIGINT)}, primary key {@code k},
 * one bucket. Each run holds {@code rowsPerRun} distinct random keys of {@code [0, keys)}; a key's
 * row is an upsert with a random {@code valueBytes}-character {@code v}, or, one time in {@code
 * deleteEvery} ({@code 0}: never), a delete. The model is what a deduplicating table shows: each
 * key's last row, deleted keys gone.
 *
 * <p>For the kit's READ rules, the governed read tests and {@code bench read}. Stateless; thread-safe.
 */
public final class SortedRunTable {

    private SortedRunTable() {}

    /** The table's content as the model sees it: key to {@code v}. */
    public record Written(FileStoreTable table, Map<Integer, String> model, long rows) {}

    /**
     * Creates table {@code db.name} in the local warehouse at {@code warehouse} with {@code options}
     * (the file format, a merge engine, ...) and writes {@code runs} runs into it.
     *
     * @throws Exception what Paimon's catalog or writer throws
     */
    public static Written write(Path warehouse, String name, Map<String, String> options, int runs, int rowsPerRun, int keys,
            int valueBytes, int deleteEvery, long seed) throws Exception {
        requireShape(rowsPerRun, keys);
        FileStoreTable table = create(warehouse, name, options);
        Map<Integer, String> model = new TreeMap<>();
        long rows = writeRuns(table, model, 0, runs, rowsPerRun, keys, valueBytes, deleteEvery, seed);
        return new Written(table, model, rows);
    }

    /**
     * Writes {@code runs} more runs into a table {@link #write} made, as runs {@code firstRun},
     * {@code firstRun + 1}, ... (their commit identifiers and the {@code n} of their rows), and
     * applies them to {@code model}. A table with deletion vectors waits for the compaction each run
     * starts.
     *
     * @return the rows written, deletes included
     * @throws Exception what Paimon's writer throws
     */
    public static long writeRuns(FileStoreTable table, Map<Integer, String> model, int firstRun, int runs, int rowsPerRun, int keys,
            int valueBytes, int deleteEvery, long seed) throws Exception {
        requireShape(rowsPerRun, keys);
        Random random = new Random(seed);
        StreamWriteBuilder builder = table.newStreamWriteBuilder();
        // Plain Paimon's deletion vectors are written by prepareCommit while its compaction thread may
        // still change them (a bitmap changed while it is serialized fails the write now and then):
        // with deletion vectors each run waits for the compaction it started.
        boolean waitCompaction = table.coreOptions().deletionVectorsEnabled();
        long rows = 0;
        Path tmp = Files.createTempDirectory("paimon-gov-runs-");
        // Lookups of deletion vectors and lookup changelogs need a disk.
        try (IOManager disk = IOManager.create(tmp.toString());
                StreamTableWrite write = (StreamTableWrite) builder.newWrite().withIOManager(disk);
                StreamTableCommit commit = builder.newCommit()) {
            for (int run = firstRun; run < firstRun + runs; run++) {
                BitSet used = new BitSet(keys);
                for (int i = 0; i < rowsPerRun; i++) {
                    int k = random.nextInt(keys);
                    while (used.get(k)) {
                        k = (k + 1) % keys;
                    }
                    used.set(k);
                    boolean delete = deleteEvery > 0 && random.nextInt(deleteEvery) == 0;
                    String v = value(random, valueBytes);
                    GenericRow row = GenericRow.of(k, BinaryString.fromString(v), (long) run);
                    if (delete) {
                        row.setRowKind(RowKind.DELETE);
                        model.remove(k);
                    } else {
                        model.put(k, v);
                    }
                    write.write(row);
                    rows++;
                }
                commit.commit(run, write.prepareCommit(waitCompaction, run));
            }
        } finally {
            deleteQuietly(tmp);
        }
        return rows;
    }

    private static void requireShape(int rowsPerRun, int keys) {
        if (rowsPerRun > keys) {
            throw new IllegalArgumentException("rowsPerRun (" + rowsPerRun + ") must not exceed keys (" + keys + ")");
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp directory of the JVM's: left to it
        }
    }

    /** Creates the table: one bucket, no compaction by the writer, {@code options} on top. */
    static FileStoreTable create(Path warehouse, String name, Map<String, String> options) throws Exception {
        Map<String, String> all = new HashMap<>();
        all.put("bucket", "1");
        all.put("write-only", "true");
        all.putAll(options);
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            catalog.createDatabase("db", true);
            Schema schema = Schema.newBuilder()
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .column("n", DataTypes.BIGINT())
                    .primaryKey("k")
                    .options(all)
                    .build();
            Identifier id = Identifier.create("db", name);
            catalog.createTable(id, schema, false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    private static String value(Random random, int bytes) {
        char[] chars = new char[bytes];
        for (int i = 0; i < bytes; i++) {
            chars[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }
}
