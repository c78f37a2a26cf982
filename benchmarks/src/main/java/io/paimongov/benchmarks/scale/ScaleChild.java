package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.LiveHeap;
import io.paimongov.runtime.write.CommitFiles;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.apache.paimon.CoreOptions;
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
 * OutOfMemoryError). Three modes:
 *
 * - baseline: makes both warm-up writes (warmUpCell), creates the cell's table, opens plain Paimon's
 *   write and then the governed write with no rows, and prints the live heap (settled full
 *   collections, LiveHeap.settled) with each open; the larger is what a writing child holds before
 *   its first row.
 * - governed: the cell's rows through GovernedTableWrite (heap provider, the cell's budget).
 * - plain: the same rows through Paimon's own write (TableWriteImpl with its own heap pool,
 *   write-buffer-size = the budget, an IOManager as every engine gives it, Paimon's defaults
 *   otherwise). A dynamic-bucket table gets its buckets from Paimon's SimpleHashBucketAssigner on the
 *   trimmed primary key's hash, as Paimon's engines assign them, and write(row, bucket).
 *
 * A writing child first makes a small warm-up write through the same path (warmUpCell), then times
 * the write from opening it through prepareCommit (the commit is untimed, as in P1, and so are the
 * sampler's own full collections: one every SAMPLE_MILLIS and one after the last row,
 * Sampler.sampleUntimed). While it writes, it keeps the largest live heap seen after any full collection: those the
 * JVM runs by itself, one of its own every SAMPLE_MILLIS and, in the governed child, one at each
 * new high of its accounted bytes (Sampler); the baseline of that signal is the live heap (settled)
 * after the table was created, before the write opened. Neither mode is timed for the sampler's
 * collections. A watchdog ends the child when the collector took more than
 * THRASH_SHARE of the last THRASH_WINDOW_MILLIS while the old generation stays at least
 * THRASH_FULL_SHARE full after its collections: a heap that is full but not quite out of memory
 * (slow collections of a heap that is mostly free, such as a stalled machine gives, are not
 * thrash).
 *
 * Output: one line "SCALE key=value ..." on success (exit 0); "SCALE_FAILED reason" when the write
 * threw (exit 1) or thrashed (exit 4). An OutOfMemoryError ends the JVM with its own message.
 */

/**
 * One write of one scale cell, in a child JVM: {@code baseline|governed|plain TABLE FORMAT WRITERS
 * ROWS ROW_BYTES BUDGET WORK_DIR SAMPLE_MILLIS}. Started by {@link ScaleRunner}; not for other use.
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
    static final int WARM_UP_ROWS = 100_000;

    private ScaleChild() {}

    public static void main(String[] args) throws Exception {
        if (args.length != ScaleCell.ARGS + 3) {
            System.err.println("usage: ScaleChild baseline|governed|plain TABLE FORMAT WRITERS ROWS ROW_BYTES BUDGET WORK_DIR SAMPLE_MILLIS");
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
                    // Both warm-ups, so the baseline holds what either writing child keeps after its own.
                    plain(warmUpCell(cell), work.resolve("warm-up-plain"), sampleMillis);
                    governed(warmUpCell(cell), work.resolve("warm-up-governed"), sampleMillis);
                    yield baseline(cell, work);
                }
                case "governed" -> {
                    governed(warmUpCell(cell), work.resolve("warm-up"), sampleMillis);
                    yield governed(cell, work, sampleMillis);
                }
                case "plain" -> {
                    plain(warmUpCell(cell), work.resolve("warm-up"), sampleMillis);
                    yield plain(cell, work, sampleMillis);
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

    private static Map<String, Object> baseline(ScaleCell cell, Path work) throws Exception {
        FileStoreTable table = cell.create(work.resolve("warehouse"));
        Map<String, Object> r = new LinkedHashMap<>();
        IOManager io = IOManager.create(Files.createDirectories(work.resolve("io")).toString());
        try (BatchTableWrite write = plainTable(table, cell).newBatchWriteBuilder().newWrite().withIOManager(io)) {
            r.put("plainOpenBytes", LiveHeap.settled());
        } finally {
            io.close();
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
        Sampler sampler = new Sampler(sampleMillis);
        long start = System.nanoTime();
        GovernedTableWrite write = BenchTables.governedWrite(table, "scale", cell.budgetBytes(), work, Map.of());
        long nanos;
        try (write) {
            sampler.start(() -> write.metrics().reservedBytes(), cell.budgetBytes() / Sampler.HIGH_STEPS);
            try {
                for (int i = 0; i < cell.rows(); i++) {
                    write.write(rows.next());
                }
                sampler.sampleUntimed();
                var prepared = write.prepareCommit();
                long end = System.nanoTime();
                sampler.stop();
                nanos = end - start - sampler.untimedNanos(start, end);
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

    private static Map<String, Object> plain(ScaleCell cell, Path work, long sampleMillis) throws Exception {
        FileStoreTable table = plainTable(cell.create(work.resolve("warehouse")), cell);
        ScaleRows rows = new ScaleRows(cell);
        DynamicBucketRowKeyExtractor keys = cell.table() == ScaleTable.PK_DYNAMIC ? new DynamicBucketRowKeyExtractor(table.schema()) : null;
        SimpleHashBucketAssigner buckets = keys == null ? null : new SimpleHashBucketAssigner(1, 0, cell.dynamicTargetRows(), -1);
        long baseline = LiveHeap.settled();
        Sampler sampler = new Sampler(sampleMillis);
        IOManager io = IOManager.create(Files.createDirectories(work.resolve("io")).toString());
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        long start = System.nanoTime();
        long nanos;
        List<CommitMessage> messages;
        try (BatchTableWrite write = builder.newWrite().withIOManager(io)) {
            sampler.start(null, 0);
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
                sampler.sampleUntimed();
                messages = write.prepareCommit();
                long end = System.nanoTime();
                sampler.stop();
                nanos = end - start - sampler.untimedNanos(start, end);
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

    private static FileStoreTable plainTable(FileStoreTable table, ScaleCell cell) {
        return table.copy(Map.of(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(cell.budgetBytes())));
    }

    private static Map<String, Object> timed(ScaleCell cell, long nanos, long baseline, Sampler sampler) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rows", cell.rows());
        r.put("nanos", nanos);
        r.put("heapBaselineBytes", baseline);
        r.put("liveHeapPeakBytes", sampler.peak);
        r.put("heapSamples", sampler.samples.get());
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
        MemoryPoolMXBean old = null;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getUsage().getMax() > 0
                    && (old == null || pool.getUsage().getMax() > old.getUsage().getMax())) {
                old = pool;
            }
        }
        MemoryUsage after = old == null ? null : old.getCollectionUsage();
        return after == null ? 0 : (double) after.getUsed() / old.getUsage().getMax();
    }

    /**
     * How much of {@code [from, to]} the {@code [begin, end]} spans cover, each instant counted once
     * however many spans cover it.
     */
    static long coveredNanos(List<long[]> spans, long from, long to) {
        List<long[]> sorted = new ArrayList<>(spans);
        sorted.sort((a, b) -> Long.compare(a[0], b[0]));
        long sum = 0;
        long covered = from;
        for (long[] span : sorted) {
            long begin = Math.max(span[0], covered);
            long end = Math.min(span[1], to);
            if (end > begin) {
                sum += end - begin;
                covered = end;
            }
        }
        return sum;
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, bean.getCollectionTime());
        }
        return sum;
    }

    /**
     * The largest live heap while the write runs, from three sources: every full collection the JVM
     * runs anyway (a heap near its limit collects often, and those are the moments that matter),
     * read from the collector's own notification (heap pools' usage after it); a full collection of
     * its own every {@code everyMillis} on a thread of its own, so that a write whose heap never
     * fills is sampled too; and, for the governed write, one each time its accounted bytes reach a
     * new high by at least a {@value #HIGH_STEPS}th of the budget (read every {@value #POLL_MILLIS}
     * ms), so that the live heap is read where the accounted peak is, however briefly the write
     * holds it. Without those, a six-second write at 16 MiB with 512 writers, run by hand in a 200
     * MiB heap and sampled once a second, read -0.33 of drift; sampled every 100 ms, 0.00; with
     * them, -0.08 to -0.15 (docs/performance.md, Heap drift). Under the serial collector a full collection
     * compacts the whole heap, so what is left after it is the live set.
     */
    static final class Sampler {
        /** The accounted high a collection is taken at rises in steps of the budget over this. */
        static final int HIGH_STEPS = 32;
        static final long POLL_MILLIS = 5;
        private final long everyMillis;
        private final AtomicBoolean running = new AtomicBoolean();
        private final List<NotificationEmitter> emitters = new ArrayList<>();
        private final NotificationListener listener = this::onCollection;
        private Thread thread;
        private volatile long peak;
        private final AtomicInteger samples = new AtomicInteger();
        /** [begin, end] of each collection and wait left out of the write's time. */
        private final List<long[]> untimed = new ArrayList<>();

        Sampler(long everyMillis) {
            this.everyMillis = everyMillis;
        }

        /**
         * Starts sampling. {@code accounted}, when not null, is read from the sampler's thread (the
         * write's metrics snapshot, callable from any thread) for the collections at accounted
         * highs, {@code stepBytes} apart.
         */
        void start(LongSupplier accounted, long stepBytes) {
            running.set(true);
            for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (bean instanceof NotificationEmitter emitter) {
                    emitter.addNotificationListener(listener, null, null);
                    emitters.add(emitter);
                }
            }
            thread = new Thread(() -> {
                long last = System.nanoTime() - everyMillis * 1_000_000L;
                long high = NO_HIGH;
                while (running.get()) {
                    long held = accounted == null ? NO_HIGH : accounted.getAsLong();
                    boolean atHigh = atNewHigh(held, high, stepBytes);
                    if (atHigh || System.nanoTime() - last >= everyMillis * 1_000_000L) {
                        high = atHigh ? held : high;
                        collectUntimed();
                        last = System.nanoTime();
                    }
                    try {
                        Thread.sleep(accounted == null ? everyMillis : Math.min(everyMillis, POLL_MILLIS));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "scale-heap-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void onCollection(Notification n, Object handback) {
            if (!running.get() || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            if (!info.getGcAction().contains("major")) {
                return;
            }
            long live = 0;
            for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                if (HEAP_POOLS.contains(pool.getKey())) {
                    live += pool.getValue().getUsed();
                }
            }
            synchronized (this) {
                peak = Math.max(peak, live);
            }
            samples.incrementAndGet();
        }

        /** No accounted high yet (or no accounted bytes at all). */
        static final long NO_HIGH = -1;

        /**
         * Whether accounted bytes {@code held} call for a collection: the first reading ({@code
         * high} is {@link #NO_HIGH}), or one at least {@code stepBytes} (at least 1) above the
         * {@code high} the last such collection was taken at. Never for {@code held} = {@link
         * #NO_HIGH} (nothing accounted: plain Paimon).
         */
        static boolean atNewHigh(long held, long high, long stepBytes) {
            return held != NO_HIGH && (high == NO_HIGH || held >= high + Math.max(1, stepBytes));
        }

        /**
         * One full collection now, on the calling thread: the writing thread calls it after its last
         * row, before prepareCommit, where buffered rows are all held, so that a write shorter than
         * the sampling period is sampled at its fullest too. Its time, the wait for the collector's
         * notification included, is left out of the write's ({@link #untimedNanos}).
         */
        void sampleUntimed() throws InterruptedException {
            long begin = System.nanoTime();
            int before = samples.get();
            System.gc();
            // The collector's notification comes on another thread: wait for it (at most a second).
            for (int i = 0; i < 100 && samples.get() == before; i++) {
                Thread.sleep(10);
            }
            untimed(begin, System.nanoTime());
        }

        /**
         * One of the sampler's own full collections. It stops the writing thread as long as it runs,
         * so its time is left out of the write's ({@link #untimedNanos}): otherwise a write of a
         * second paid one or two of them by the phase of the sampling clock, up to a tenth of its
         * time, and the governed and plain children of a cell differed by that luck.
         */
        private void collectUntimed() {
            long begin = System.nanoTime();
            System.gc();
            untimed(begin, System.nanoTime());
        }

        private synchronized void untimed(long begin, long end) {
            untimed.add(new long[] {begin, end});
        }

        /**
         * Nanoseconds of {@code [from, to]} spent in the sampler's own collections and in {@link
         * #sampleUntimed} (the union of those intervals, so that a collection the two ask for at once
         * counts once). Call after {@link #stop}.
         */
        synchronized long untimedNanos(long from, long to) {
            return coveredNanos(untimed, from, to);
        }

        /** Stops the sampling; idempotent. */
        void stop() throws InterruptedException {
            if (thread != null && running.getAndSet(false)) {
                thread.interrupt();
                thread.join();
                for (NotificationEmitter e : emitters) {
                    try {
                        e.removeNotificationListener(listener);
                    } catch (ListenerNotFoundException ignored) {
                        // already removed
                    }
                }
            }
        }
    }

    /** Names of the heap pools (the collectors' notifications also report non-heap ones). */
    private static final Set<String> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toUnmodifiableSet());
}
