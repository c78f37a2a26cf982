package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.PlainSettings;
import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;

/**
 * The lag benchmark's table: {@code lag.t (k INT PRIMARY KEY, ts BIGINT, v STRING)} with deletion
 * vectors, {@value #BUCKETS} fixed buckets, Parquet with zstd, in a local warehouse. {@code ts} is
 * the time the row arrived ({@link Arrivals}; epoch ms) and has full statistics, so the newest visible row
 * can be read from the files' statistics; {@code v} pads a row to about 200 bytes.
 *
 * <p>A deletion-vector batch read skips level 0 (Paimon's {@code batchScanSkipLevel0}): a row is
 * visible only once a compaction has moved it out of level 0 and that compaction was committed.
 * {@code changelog-producer.lookup-wait} is false because the writer never waits for compaction at a
 * checkpoint (with waiting, each checkpoint would compact and the lag would be the checkpoint's).
 *
 * <p>Stateless; thread-safe.
 */
public final class LagTable {

    public static final int BUCKETS = 4;
    /** Bytes of {@code v}; with the key, {@code ts} and Paimon's row header a row is about 200 bytes. */
    public static final int VALUE_BYTES = 176;
    static final String DATABASE = "lag";
    static final String TABLE = "t";
    /**
     * Rows per commit while ageing ({@link #age}): about a checkpoint's at the rates one thread
     * drains. Fixed on 2026-12-03 with {@link #ageRows} and not changed since, whatever a run showed.
     */
    public static final int AGE_CHECKPOINT_ROWS = 40_000;

    private LagTable() {}

    /** Creates the table in {@code warehouse} (created if missing) and returns it. */
    public static FileStoreTable create(Path warehouse) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("ts", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("k")
                .options(Map.of(
                        "bucket", Integer.toString(BUCKETS),
                        "deletion-vectors.enabled", "true",
                        "changelog-producer.lookup-wait", "false",
                        "file.format", "parquet",
                        "file.compression", "zstd",
                        "fields.ts.stats-mode", "full"))
                .build();
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(DATABASE, true);
            catalog.createTable(Identifier.create(DATABASE, TABLE), schema, false);
        }
        return table(warehouse);
    }

    /** The table of an existing warehouse. */
    public static FileStoreTable table(Path warehouse) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(Identifier.create(DATABASE, TABLE));
        }
    }

    /**
     * Writes every key {@code 0..keys-1} once with {@code ts} and commits it compacted (a batch write
     * waits for compaction, which on a deletion-vector table moves level 0 up): the table a run starts
     * from already holds every key in the upper levels, so its first compactions look keys up and
     * write deletion vectors as the later ones do, instead of filling empty levels cheaply. Plain
     * Paimon, outside the governed write; {@code tmp} holds its lookup files.
     */
    static void fill(FileStoreTable table, int keys, long seed, long ts, Path tmp) throws Exception {
        Rows rows = new Rows(seed, 1);
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (IOManager io = IOManager.create(tmp.toString());
                BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(io);
            for (int k = 0; k < keys; k++) {
                GenericRow row = rows.next(ts);
                row.setField(0, k);
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
    }

    /**
     * Ages the table as a long-running stream would: {@code rows} updates of random keys with {@code
     * ts}, committed every {@value #AGE_CHECKPOINT_ROWS} rows without waiting for compaction, so the
     * levels between level 0 and the filled one take the shape a streaming table has; the last
     * commit waits for compaction, so no level-0 file is left. Without it every run started from
     * a table whose first compactions merged into empty levels: one thread kept up at any rate for
     * the first 35 to 40 s of a run and the thread count only mattered after that. Plain Paimon;
     * {@code tmp} holds its lookup files.
     */
    static void age(FileStoreTable table, int keys, long rows, long seed, long ts, Path tmp) throws Exception {
        Rows source = new Rows(seed, keys);
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("bench-lag-age");
        try (IOManager io = IOManager.create(tmp.toString());
                StreamTableWrite write = builder.newWrite();
                StreamTableCommit commit = builder.newCommit()) {
            write.withIOManager(io);
            long checkpoint = 1;
            for (long i = 1; i <= rows; i++) {
                write.write(source.next(ts));
                if (i % AGE_CHECKPOINT_ROWS == 0 && i < rows) {
                    commit.commit(checkpoint, write.prepareCommit(false, checkpoint));
                    checkpoint++;
                }
            }
            commit.commit(checkpoint, write.prepareCommit(true, checkpoint));
        }
    }

    /**
     * Updates the ageing streams into a table of {@code keys} keys: half as many as there are keys.
     * A rule fixed on 2026-12-03 (the table a run of that day started from filled its levels during
     * the run) and not changed since, whatever a run showed.
     */
    public static long ageRows(int keys) {
        return keys / 2;
    }

    /**
     * Creates the table in {@code warehouse}, fills it with every key of {@code 0..keys-1} once
     * ({@link #fill}) and ages it with {@link #ageRows} updates ({@link #age}), every row's {@code
     * ts} the time of the fill, both with the table options a governed write under {@code
     * budgetBytes} sets ({@link PlainSettings#sameAsGoverned}); {@code tmp} holds the lookup files. A benchmark prepares it once and
     * runs each setting on a copy: a fill of millions of keys takes longer than a run.
     */
    static void prepare(Path warehouse, int keys, long seed, Path tmp, long budgetBytes) throws Exception {
        // Written with the table options a governed write under the run's budget sets (its row
        // groups among them), as that write would have written it: a table of Paimon's default
        // 128 MB row groups cannot be read within a budget below them, and the governed write
        // refuses it (a compaction task's lookups hold a whole row group).
        FileStoreTable created = create(warehouse);
        FileStoreTable table = created.copy(PlainSettings.sameAsGoverned(created, budgetBytes));
        long ts = System.currentTimeMillis();
        fill(table, keys, seed, ts, tmp);
        age(table, keys, ageRows(keys), seed + 1, ts, tmp);
    }

    private static Catalog catalog(Path warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)));
    }

    /**
     * Seeded rows: {@code k} uniform in {@code [0, keys)} (a key space a few times a checkpoint's rows
     * makes most rows updates, which deletion vectors then mark), {@code v} random letters: a slice at
     * a random offset of a {@value #ARENA_BYTES}-byte arena of letters drawn once per JVM. Two values
     * of one file rarely overlap (a file holds a few thousand rows), so they compress as random
     * letters do, and making one costs a copy rather than {@value #VALUE_BYTES} draws: the harness's
     * own CPU (a third of the writing thread's when every letter was drawn) stays out of the
     * measurement. Not thread-safe: one per writing thread.
     */
    static final class Rows {
        static final int ARENA_BYTES = 32 << 20;
        private final SplittableRandom random;
        private final int keys;

        Rows(long seed, int keys) {
            if (keys < 1) {
                throw new IllegalArgumentException("keys must be at least 1: " + keys);
            }
            this.random = new SplittableRandom(seed);
            this.keys = keys;
        }

        /** A new row with {@code ts}; a new object every call (Paimon may keep it until it is copied). */
        GenericRow next(long ts) {
            int from = random.nextInt(ARENA_BYTES - VALUE_BYTES + 1);
            return GenericRow.of(random.nextInt(keys), ts, BinaryString.fromBytes(Arena.LETTERS, from, VALUE_BYTES));
        }

        /** The letters, drawn from a fixed seed when first used; never written after. */
        private static final class Arena {
            static final byte[] LETTERS = letters(new SplittableRandom(0x1a9L));

            private static byte[] letters(SplittableRandom random) {
                byte[] letters = new byte[ARENA_BYTES];
                for (int i = 0; i < letters.length; ) {
                    long bits = random.nextLong();
                    for (int j = 0; j < 12 && i < letters.length; j++, bits >>>= 5) {
                        letters[i++] = (byte) ('a' + (int) ((bits & 31) % 26));
                    }
                }
                return letters;
            }
        }
    }
}
