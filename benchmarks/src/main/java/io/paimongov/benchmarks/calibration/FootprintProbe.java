package io.paimongov.benchmarks.calibration;

import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.runtime.write.WriteFootprint;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.LiveHeap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.KeyValue;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.KeyValueFileWriterFactory;
import org.apache.paimon.io.RollingFileWriter;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.PrimaryKeyTableUtils;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.FileStorePathFactory;

/*
 * The child side of the calibration: one cell (table kind, format, compression, value width, page
 * size) at one writer count N, measured in a JVM of its own so that nothing another measurement
 * loaded or left behind counts.
 *
 * First the whole procedure runs once, untimed, at WARM_UP_WRITERS on a table of its own, so that
 * Paimon's lazily built classes, codecs and caches exist before the baseline. Then on a fresh
 * table: the stream write is opened and a full collection gives the baseline (no writer yet); k
 * rows go into every one of the N (partition, bucket) pairs, so N writers are open; the live heap
 * after a full collection, less the baseline and less the pool's pages (CountingPool), is what the
 * writers keep outside pages (stage "open": primary key, the writer and its write buffer
 * before any flush; append, the writer with its data file open). Then prepareCommit(false, 1)
 * flushes every writer (primary key: the buffer goes to a level-0 file; append: the open file is
 * closed) while the writers stay alive, as a streaming write keeps them; measured again, that is
 * stage "idle". For a primary-key table, stage "file" then opens N of Paimon's own level-0
 * data-file writers side by side on a fresh table (a flush or a compaction rewrite opens one such
 * writer at a time), which isolates what one open primary-key file writer costs. The parent takes the slope between two values of N, so whatever does not grow
 * with N (the write object, caches) falls out.
 */
final class FootprintProbe {

    /** Buckets per partition: N pairs are N / 8 partitions of 8 buckets, as users lay out tables. */
    static final int BUCKETS = 8;
    static final String RESULT = "FOOTPRINT";
    /** Writers of the warm-up write: the same in every child, so what it leaves behind cancels in the slope. */
    static final int WARM_UP_WRITERS = BUCKETS;

    private FootprintProbe() {}

    /**
     * One cell at one writer count: {@code KIND FORMAT COMPRESSION VALUE_BYTES PAGE_SIZE
     * ROWS_PER_WRITER WRITERS WORK_DIR}. Prints one line {@code FOOTPRINT key=value ...} on stdout,
     * read by {@link Calibrate}.
     */
    public static void main(String[] args) throws Exception {
        ProbeArgs a = ProbeArgs.parse("FootprintProbe", args);
        Cell cell = a.cell();
        int rows = a.rowsPerWriter();
        int writers = a.writers();
        Path work = a.work();

        boolean files = cell.kind() == Cell.Kind.PK;
        measure(cell, work.resolve("warm-up"), WARM_UP_WRITERS, rows);
        if (files) {
            measureFileWriters(cell, work.resolve("warm-up-files"), WARM_UP_WRITERS, rows);
        }
        Measured m = measure(cell, work.resolve("measured"), writers, rows);
        StringBuilder line = new StringBuilder(RESULT).append(" writers=").append(m.writers())
                .append(" open=").append(m.open()).append(" openPages=").append(m.openPages())
                .append(" idle=").append(m.idle()).append(" idlePages=").append(m.idlePages());
        if (files) {
            line.append(" file=").append(measureFileWriters(cell, work.resolve("files"), writers, rows)).append(" filePages=0");
        }
        System.out.println(line);
    }

    /**
     * What one writer count gave, in both stages: bytes above the baseline less every page the pool
     * has on the heap, and the page bytes the writers held.
     */
    record Measured(int writers, long open, long openPages, long idle, long idlePages) {}

    static Measured measure(Cell cell, Path dir, int pairs, int rowsPerWriter) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        FileStoreTable table = create(warehouse, cell);
        CountingPool pool = new CountingPool(cell.pageSize());
        IOManager io = IOManager.create(Files.createDirectories(dir.resolve("io")).toString());
        Measured m;
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newStreamWriteBuilder().newWrite()) {
            write.withIOManager(io).withMemoryPoolFactory(new MemoryPoolFactory(pool));
            long baseline = liveHeapBytes();
            writeEveryPair(write, pairs, rowsPerWriter, cell.valueBytes());
            int writers = openWriters(write);
            long openPages = pool.heldBytes();
            long open = liveHeapBytes() - baseline - pool.heapBytes();
            write.prepareCommit(false, 1);
            long idlePages = pool.heldBytes();
            long idle = liveHeapBytes() - baseline - pool.heapBytes();
            m = new Measured(writers, open, openPages, idle, idlePages);
        } finally {
            io.close();
        }
        BenchTables.deleteTree(dir);
        return m;
    }

    /**
     * Stage "file" of a primary-key table: {@code pairs} level-0 data-file writers open at once,
     * each with {@code rowsPerWriter} rows written, made by Paimon's own {@link
     * KeyValueFileWriterFactory} as a flush or a compaction rewrite makes them (one at a time
     * there; side by side here, so the slope gives one writer's bytes). Returns the live heap above
     * the baseline taken before the first writer opened; the writers are aborted after.
     */
    static long measureFileWriters(Cell cell, Path dir, int pairs, int rowsPerWriter) throws Exception {
        FileStoreTable table = create(dir.resolve("warehouse"), cell);
        TableSchema schema = table.schema();
        CoreOptions options = new CoreOptions(table.options());
        FileStorePathFactory paths = table.store().pathFactory();
        KeyValueFileWriterFactory.Builder builder = KeyValueFileWriterFactory.builder(table.fileIO(), schema.id(),
                PrimaryKeyTableUtils.addKeyNamePrefix(schema.logicalTrimmedPrimaryKeysType()), schema.logicalRowType(),
                FileFormat.fileFormat(options), format -> paths, options.targetFileSize(true));
        BenchTables.Rows values = new BenchTables.Rows(19, 1, cell.valueBytes());
        List<RollingFileWriter<KeyValue, DataFileMeta>> writers = new ArrayList<>();
        long heap;
        try (TableWriteImpl<?> router = (TableWriteImpl<?>) table.newStreamWriteBuilder().newWrite()) {
            long baseline = liveHeapBytes();
            long sequence = 0;
            for (int p = 0; p < pairs / BUCKETS; p++) {
                for (int bucket = 0; bucket < BUCKETS; bucket++) {
                    GenericRow first = GenericRow.of(p, 0, values.next().getString(1));
                    RollingFileWriter<KeyValue, DataFileMeta> writer =
                            builder.build(router.getPartition(first), bucket, options).createRollingMergeTreeFileWriter(0, FileSource.APPEND);
                    writers.add(writer);
                    for (int key = 0; key < rowsPerWriter; key++) {
                        GenericRow row = GenericRow.of(p, key, values.next().getString(1));
                        writer.write(new KeyValue().replace(GenericRow.of(key), sequence++, RowKind.INSERT, row));
                    }
                }
            }
            heap = liveHeapBytes() - baseline;
        } finally {
            writers.forEach(RollingFileWriter::abort);
        }
        BenchTables.deleteTree(dir);
        return heap;
    }

    /**
     * Writes exactly {@code rowsPerWriter} rows into each bucket of {@code pairs / BUCKETS}
     * partitions: keys count up and a row whose bucket already has its rows is skipped, so every
     * writer gets the same rows whatever the hash spreads.
     */
    static void writeEveryPair(TableWriteImpl<?> write, int pairs, int rowsPerWriter, int valueBytes) throws Exception {
        BenchTables.Rows values = new BenchTables.Rows(17, 1, valueBytes);
        for (int p = 0; p < pairs / BUCKETS; p++) {
            int[] filled = new int[BUCKETS];
            int done = 0;
            for (int key = 0; done < BUCKETS; key++) {
                GenericRow row = values.next();
                GenericRow full = GenericRow.of(p, key, row.getString(1));
                int bucket = write.getBucket(full);
                if (filled[bucket] < rowsPerWriter) {
                    write.write(full);
                    if (++filled[bucket] == rowsPerWriter) {
                        done++;
                    }
                }
            }
        }
    }

    private static int openWriters(TableWriteImpl<?> write) {
        if (!(write.getWrite() instanceof AbstractFileStoreWrite<?> w)) {
            throw new IllegalStateException("cannot count the writers of " + write.getWrite().getClass().getName());
        }
        return w.getActiveBuckets().values().stream().mapToInt(List::size).sum();
    }

    /**
     * The table {@code cal.t (p INT, k INT, v STRING)} partitioned by {@code p}, {@value #BUCKETS}
     * fixed buckets, with the options a governed write sets ({@code WriteFootprint}): synchronous
     * file writes, the cell's page size, its Parquet page size, a spillable write buffer for primary keys.
     */
    static FileStoreTable create(Path warehouse, Cell cell) throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("p", DataTypes.INT().notNull())
                        .column("k", DataTypes.INT().notNull())
                        .column("v", DataTypes.STRING())
                        .partitionKeys("p")
                        .option("bucket", Integer.toString(BUCKETS))
                        .option(CoreOptions.FILE_FORMAT.key(), cell.format())
                        .option(CoreOptions.FILE_COMPRESSION.key(), cell.compression())
                        .option(CoreOptions.PAGE_SIZE.key(), Integer.toString(cell.pageSize()))
                        .option(CoreOptions.ASYNC_FILE_WRITE.key(), "false")
                        .option("parquet.page.size", Integer.toString(WriteFootprint.PARQUET_PAGE_SIZE))
                        .option("orc.compress.size", Integer.toString(WriteFootprint.ORC_COMPRESS_SIZE));
        if (cell.kind() == Cell.Kind.PK) {
            schema.primaryKey("p", "k").option(CoreOptions.WRITE_BUFFER_SPILLABLE.key(), "true");
        } else {
            // Past write-max-writers-to-spill (10) open writers with an IOManager, Paimon turns every
            // append writer into a buffered one (rows in pool pages, no file open): measure the file
            // writer itself, as a write without an IOManager or with few writers has it.
            schema.option("bucket-key", "k").option(CoreOptions.WRITE_MAX_WRITERS_TO_SPILL.key(), Integer.toString(Integer.MAX_VALUE));
        }
        return createTable(warehouse, "t", schema.build());
    }

    /** Creates {@code cal.<name>} with {@code schema} in a fresh filesystem catalog at {@code warehouse}: every probe's table. */
    static FileStoreTable createTable(Path warehouse, String name, Schema schema) throws Exception {
        Identifier id = Identifier.create("cal", name);
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            catalog.createDatabase("cal", true);
            catalog.createTable(id, schema, false);
            return (FileStoreTable) catalog.getTable(id);
        }
    }

    /** Live heap now, settled: {@link LiveHeap#settled}. */
    static long liveHeapBytes() throws InterruptedException {
        return LiveHeap.settled();
    }

    /**
     * A heap pool that counts its pages: those handed out and not returned ({@link #heldBytes}),
     * and all it ever allocated ({@link #heapBytes}), which stay on the heap, in use or free.
     * Returned pages are handed out again first, as Paimon's own pools and the runtime's do: a
     * writer's sort buffer returns pages and keeps referring to one of them until it takes new
     * ones, so a pool that dropped returned pages would leave a page per writer on the heap that a
     * reusing pool never allocates. Bounded at 1 GiB only so that a buffer that never flushes
     * cannot take the child down. Single-threaded, as the write that uses it.
     */
    static final class CountingPool implements MemorySegmentPool {
        private final int pageSize;
        private final int maxPages;
        private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
        private int held;
        private int allocated;

        CountingPool(int pageSize) {
            this.pageSize = pageSize;
            this.maxPages = (1 << 30) / pageSize;
        }

        long heldBytes() {
            return (long) held * pageSize;
        }

        long heapBytes() {
            return (long) allocated * pageSize;
        }

        @Override
        public MemorySegment nextSegment() {
            if (held == maxPages) {
                return null;
            }
            held++;
            MemorySegment reused = free.poll();
            if (reused != null) {
                return reused;
            }
            allocated++;
            return MemorySegment.wrap(new byte[pageSize]);
        }

        @Override
        public void returnAll(List<MemorySegment> segments) {
            held -= segments.size();
            free.addAll(segments);
        }

        @Override
        public int pageSize() {
            return pageSize;
        }

        @Override
        public int freePages() {
            return maxPages - held;
        }
    }
}
