package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.FileWrites;
import io.paimongov.benchmarks.LiveHeap;
import io.paimongov.benchmarks.LiveHeapSampler;
import io.paimongov.benchmarks.PlainSettings;
import io.paimongov.runtime.write.CommitFiles;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.DynamicBucketRowKeyExtractor;

/*
 * The child side of the scale grid: one write of one cell in a JVM of its own, started by
 * ScaleRunner with -Xmx = the budget plus the measured baseline (ChildJvm: serial collector, exit on
 * OutOfMemoryError). Four modes:
 *
 * - baseline: makes every warm-up write (warmUpCell), creates the cell's table, opens each plain
 *   write and then the governed write with no rows, and prints the live heap (settled full
 *   collections, LiveHeap.settled) with each open; the largest is what a writing child holds before
 *   its first row.
 * - governed: the cell's rows through GovernedTableWrite (heap provider, the cell's budget).
 * - plain: the same rows through Paimon's own write (TableWriteImpl with its own heap pool, an
 *   IOManager as every engine gives it) with every table option the governed write sets and
 *   write-buffer-size = the budget (PlainSettings.sameAsGoverned): the comparison.
 * - plain-defaults: the same, with Paimon's defaults but write-buffer-size = the budget
 *   (PlainSettings.defaults): the second line.
 *
 * A dynamic-bucket table's plain writes get their buckets from Paimon's SimpleHashBucketAssigner on
 * the trimmed primary key's hash, as Paimon's engines assign them, and write(row, bucket).
 *
 * A writing child first makes a small warm-up write through the same path (warmUpCell), then times
 * the write from opening it through prepareCommit (the commit is untimed, as in P1). While it
 * writes, a LiveHeapSampler keeps the largest live heap any full collection left, by the same rule
 * in every mode (it never reads the governed write's accounting), and its collections are on the
 * clock in every mode; the baseline of that signal is the live heap (settled) after the table was
 * created, before the write opened. A recording of the JVM's file writes (FileWrites) runs in every
 * mode from before that baseline, so its heap is in every baseline alike; the bytes it saw written
 * under the work directory outside the warehouse are the write's spill, as the JVM saw it. A
 * watchdog ends the child when the collector took more than
 * THRASH_SHARE of the last THRASH_WINDOW_MILLIS while the old generation stays at least
 * THRASH_FULL_SHARE full after its collections: a heap that is full but not quite out of memory
 * (slow collections of a heap that is mostly free, such as a stalled machine gives, are not
 * thrash).
 *
 * Output: one line "SCALE key=value ..." on success (exit 0); "SCALE_FAILED reason" when the write
 * threw (exit 1) or thrashed (exit 4). An OutOfMemoryError ends the JVM with its own message.
 */

/**
 * One write of one scale cell, in a child JVM: {@code baseline|governed|plain|plain-defaults TABLE
 * FORMAT WRITERS ROWS ROW_BYTES BUDGET WORK_DIR SAMPLE_MILLIS}. Started by {@link ScaleRunner}; not
 * for other use.
 */
public final class ScaleChild {

    static final String RESULT = "SCALE";
    static final String FAILED = "SCALE_FAILED";
    static final int EXIT_FAILED = 1;
    static final int EXIT_THRASH = 4;
    static final long THRASH_WINDOW_MILLIS = 10_000;
    static final double THRASH_SHARE = 0.9;
    /**
     * The share of its old generation a thrashing heap still holds after its collections. A baseline child,
     * 24 MB live in a 512 MiB heap, once reported 9.4 s of collector time in 10.4 s (a stalled
     * machine, not a full heap: the same child takes 0.7 s of collections in all), and the whole run
     * ended for it.
     */
    static final double THRASH_FULL_SHARE = 0.8;
    static final int WARM_UP_WRITERS = 8;
    /** The sampler collects when the old generation grows by the budget over this (the same step in every mode). */
    static final int HIGH_STEPS = 32;
    static final String GOVERNED = "governed";
    static final String PLAIN = "plain";
    static final String PLAIN_DEFAULTS = "plain-defaults";
    static final int WARM_UP_ROWS = 100_000;

    private ScaleChild() {}

    public static void main(String[] args) throws Exception {
        if (args.length != ScaleCell.ARGS + 3) {
            System.err.println("usage: ScaleChild baseline|governed|plain|plain-defaults TABLE FORMAT WRITERS ROWS ROW_BYTES BUDGET WORK_DIR SAMPLE_MILLIS");
            System.exit(2);
        }
        String mode = args[0];
        ScaleCell cell = ScaleCell.parse(args, 1);
        Path work = Path.of(args[ScaleCell.ARGS + 1]);
        long sampleMillis = Long.parseLong(args[ScaleCell.ARGS + 2]);
        startWatchdog();
        Map<String, Object> result;
        try {
            result = switch (mode) {
                case "baseline" -> {
                    // Every warm-up, so the baseline holds what any writing child keeps after its own.
                    plain(warmUpCell(cell), work.resolve("warm-up-plain"), sampleMillis, true);
                    plain(warmUpCell(cell), work.resolve("warm-up-plain-defaults"), sampleMillis, false);
                    governed(warmUpCell(cell), work.resolve("warm-up-governed"), sampleMillis);
                    // The recording's own heap, as every writing child has it, is in the baseline.
                    try (FileWrites writes = FileWrites.start(work.resolveSibling(RECORDING))) {
                        yield baseline(cell, work);
                    }
                }
                case GOVERNED -> {
                    governed(warmUpCell(cell), work.resolve("warm-up"), sampleMillis);
                    yield observed(work, () -> governed(cell, work, sampleMillis));
                }
                case PLAIN, PLAIN_DEFAULTS -> {
                    boolean same = mode.equals(PLAIN);
                    plain(warmUpCell(cell), work.resolve("warm-up"), sampleMillis, same);
                    yield observed(work, () -> plain(cell, work, sampleMillis, same));
                }
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            };
        } catch (Throwable t) {
            System.out.println(FAILED + " " + reason(t));
            System.out.flush();
            t.printStackTrace();
            System.exit(EXIT_FAILED);
            return;
        }
        StringBuilder line = new StringBuilder(RESULT);
        result.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        System.out.println(line);
        System.out.flush();
        System.exit(0);
    }

    /** A measured write. */
    private interface Write {
        Map<String, Object> run() throws Exception;
    }

    /**
     * Runs {@code write} under a recording of the JVM's file writes ({@link FileWrites}, started
     * before the write takes its heap baseline, so its own heap is in it) and adds {@code
     * spillWrittenBytes}: the bytes written under {@code work} outside the table's warehouse (the
     * governed write's spill scope, plain Paimon's IOManager).
     */
    private static Map<String, Object> observed(Path work, Write write) throws Exception {
        try (FileWrites writes = FileWrites.start(work.resolveSibling(RECORDING))) {
            Map<String, Object> r = write.run();
            r.put("spillWrittenBytes", writes.bytesUnder(work, work.resolve("warehouse")));
            return r;
        }
    }

    /** The file-write recording's dump, beside the work directory (both are removed with the child's directory). */
    static final String RECORDING = "file-writes.jfr";

    private static Map<String, Object> baseline(ScaleCell cell, Path work) throws Exception {
        FileStoreTable table = cell.create(work.resolve("warehouse"));
        Map<String, Object> r = new LinkedHashMap<>();
        for (boolean same : new boolean[] {true, false}) {
            IOManager io = IOManager.create(Files.createDirectories(work.resolve("io")).toString());
            try (BatchTableWrite write = plainTable(table, cell, same).newBatchWriteBuilder().newWrite().withIOManager(io)) {
                r.put(same ? "plainOpenBytes" : "plainDefaultsOpenBytes", LiveHeap.settled());
            } finally {
                io.close();
            }
        }
        try (GovernedTableWrite write = BenchTables.governedWrite(table, "scale-baseline", cell.budgetBytes(), work, Map.of())) {
            r.put("governedOpenBytes", LiveHeap.settled());
        } catch (Exception e) {
            // The governed write refused the table when it opened: the writing child will report why.
            r.put("governedOpenBytes", -1);
        }
        return r;
    }

    /**
     * The warm-up write a writing child makes before its timed one: the same table kind, format, row
     * width and budget, {@value #WARM_UP_WRITERS} writers, at most {@value #WARM_UP_ROWS} rows,
     * through the same path (governed or plain) into a table of its own. Class loading and the
     * JIT's first compilations, about 0.6 s of a cold governed open and a like share of plain
     * Paimon's first write, are then paid outside both timings alike, so a cell of a second
     * compares the writes, not the JVMs' start.
     */
    static ScaleCell warmUpCell(ScaleCell cell) {
        return new ScaleCell(cell.table(), cell.format(), Math.min(cell.writers(), WARM_UP_WRITERS),
                Math.min(cell.rows(), WARM_UP_ROWS), cell.rowBytes(), cell.budgetBytes());
    }

    private static Map<String, Object> governed(ScaleCell cell, Path work, long sampleMillis) throws Exception {
        FileStoreTable table = cell.create(work.resolve("warehouse"));
        ScaleRows rows = new ScaleRows(cell);
        long baseline = LiveHeap.settled();
        LiveHeapSampler sampler = sampler(cell, sampleMillis);
        long start = System.nanoTime();
        GovernedTableWrite write = BenchTables.governedWrite(table, "scale", cell.budgetBytes(), work, Map.of());
        long nanos;
        try (write) {
            sampler.start();
            try {
                for (int i = 0; i < cell.rows(); i++) {
                    write.write(rows.next());
                }
                sampler.sampleNow();
                var prepared = write.prepareCommit();
                nanos = System.nanoTime() - start;
                sampler.stop();
                prepared.commit();
            } finally {
                sampler.stop();
            }
        }
        MetricsSnapshot m = write.metrics();
        Map<String, Object> r = timed(cell, nanos, baseline, sampler);
        r.put("inputRows", m.inputRows());
        r.put("inputBytes", m.inputBytes());
        r.put("budgetBytes", m.budgetBytes());
        r.put("peakReservedBytes", m.peakReservedBytes());
        r.put("spillBytes", m.spillBytes());
        r.put("spillFiles", m.spillFiles());
        r.put("filesRolledEarly", m.filesRolledEarly());
        r.put("writersClosedEarly", m.writersClosedEarly());
        r.put("sortedRows", m.sortedRows());
        r.put("outputFiles", m.outputFiles());
        r.put("peakWritersOpen", m.peakWritersOpen());
        return r;
    }

    /** A plain write of {@code cell}, with the governed write's table options ({@code same}) or Paimon's defaults. */
    private static Map<String, Object> plain(ScaleCell cell, Path work, long sampleMillis, boolean same) throws Exception {
        FileStoreTable table = plainTable(cell.create(work.resolve("warehouse")), cell, same);
        ScaleRows rows = new ScaleRows(cell);
        DynamicBucketRowKeyExtractor keys = cell.table() == ScaleTable.PK_DYNAMIC ? new DynamicBucketRowKeyExtractor(table.schema()) : null;
        SimpleHashBucketAssigner buckets = keys == null ? null : new SimpleHashBucketAssigner(1, 0, cell.dynamicTargetRows(), -1);
        long baseline = LiveHeap.settled();
        LiveHeapSampler sampler = sampler(cell, sampleMillis);
        IOManager io = IOManager.create(Files.createDirectories(work.resolve("io")).toString());
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        long start = System.nanoTime();
        long nanos;
        List<CommitMessage> messages;
        try (BatchTableWrite write = builder.newWrite().withIOManager(io)) {
            sampler.start();
            try {
                for (int i = 0; i < cell.rows(); i++) {
                    GenericRow row = rows.next();
                    if (keys == null) {
                        write.write(row);
                    } else {
                        keys.setRecord(row);
                        write.write(row, buckets.assign(keys.partition(), keys.trimmedPrimaryKey().hashCode()));
                    }
                }
                sampler.sampleNow();
                messages = write.prepareCommit();
                nanos = System.nanoTime() - start;
                sampler.stop();
            } finally {
                sampler.stop();
            }
            try (BatchTableCommit commit = builder.newCommit()) {
                commit.commit(messages);
            }
        } finally {
            io.close();
        }
        Map<String, Object> r = timed(cell, nanos, baseline, sampler);
        r.put("outputFiles", CommitFiles.dataFiles(messages).size());
        return r;
    }

    private static FileStoreTable plainTable(FileStoreTable table, ScaleCell cell, boolean same) {
        return table.copy(same ? PlainSettings.sameAsGoverned(table, cell.budgetBytes()) : PlainSettings.defaults(cell.budgetBytes()));
    }

    /** The sampler of every mode: {@code --sample-millis}, and a step of the budget over {@value #HIGH_STEPS}. */
    private static LiveHeapSampler sampler(ScaleCell cell, long sampleMillis) {
        return new LiveHeapSampler(sampleMillis, cell.budgetBytes() / HIGH_STEPS, null);
    }

    private static Map<String, Object> timed(ScaleCell cell, long nanos, long baseline, LiveHeapSampler sampler) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rows", cell.rows());
        r.put("nanos", nanos);
        r.put("heapBaselineBytes", baseline);
        r.put("liveHeapPeakBytes", sampler.peakBytes());
        r.put("heapSamples", sampler.samples());
        r.put("samplerCollections", sampler.ownCollections());
        r.put("samplerGcMillis", sampler.ownCollectionMillis());
        return r;
    }

    /**
     * A failure as one line: {@code ResourceExhaustedException: message} when the write refused
     * (anywhere in the cause chain), else the thrown type and message, and the root cause's when it
     * is another. At most 400 characters.
     */
    static String reason(Throwable t) {
        Throwable root = t;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ResourceExhaustedException) {
                return oneLine(describe(c));
            }
            root = c;
        }
        String text = describe(t) + (root == t ? "" : " (cause: " + describe(root) + ")");
        return oneLine(text);
    }

    private static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    private static String oneLine(String text) {
        String line = text.replaceAll("\\s+", " ").trim();
        return line.length() <= 400 ? line : line.substring(0, 397) + "...";
    }

    /**
     * Ends the JVM with {@value #EXIT_THRASH} when the collectors {@linkplain #thrashing thrash} over
     * the last {@link #THRASH_WINDOW_MILLIS} (read every second). A daemon thread; it reads the
     * collectors' own counters.
     */
    private static void startWatchdog() {
        Thread t = new Thread(() -> {
            int slots = (int) (THRASH_WINDOW_MILLIS / 1000);
            long[] gc = new long[slots + 1];
            long[] wall = new long[slots + 1];
            for (long tick = 0; ; tick++) {
                int i = (int) (tick % gc.length);
                gc[i] = gcMillis();
                wall[i] = System.nanoTime() / 1_000_000;
                if (tick >= slots) {
                    int oldest = (int) ((tick - slots) % gc.length);
                    long spent = gc[i] - gc[oldest];
                    long elapsed = wall[i] - wall[oldest];
                    if (thrashing(spent, elapsed, oldGenerationFullShare())) {
                        System.out.println(FAILED + " GC thrash: the collector took " + spent + " of the last " + elapsed
                                + " ms (the heap is full and little is freed)");
                        System.out.flush();
                        Runtime.getRuntime().halt(EXIT_THRASH);
                    }
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "scale-gc-watchdog");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Whether collections that took {@code gcMillis} of {@code wallMillis}, leaving the old
     * generation {@code oldFullShare} full, are thrash: more than {@link #THRASH_SHARE} of the time,
     * with the old generation at least {@link #THRASH_FULL_SHARE} full after them.
     */
    static boolean thrashing(long gcMillis, long wallMillis, double oldFullShare) {
        return gcMillis > THRASH_SHARE * wallMillis && oldFullShare >= THRASH_FULL_SHARE;
    }

    /**
     * How full the old generation was after its last collection: the largest heap pool (the serial
     * collector's tenured space, two thirds of the heap), its usage after collection over its
     * capacity; 0 before it was ever collected.
     */
    private static double oldGenerationFullShare() {
        MemoryPoolMXBean old = LiveHeapSampler.oldGeneration();
        MemoryUsage after = old == null ? null : old.getCollectionUsage();
        return after == null ? 0 : (double) after.getUsed() / old.getUsage().getMax();
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, bean.getCollectionTime());
        }
        return sum;
    }
}
