package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.LiveHeap;
import io.paimongov.benchmarks.LiveHeapSampler;
import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.runtime.write.WriteFootprint;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.TableWriteImpl;

/**
 * The writing task of one lag run, in a JVM of its own ({@link LagRun} starts it): the only caller
 * of one write, governed ({@code compaction.task-threads} 1, 2 or -1) or plain Paimon (one
 * compaction thread, Paimon's own), fed rows on the run's arrival schedule ({@link Arrivals}); a
 * {@code prepareCommit(false, n)} every checkpoint interval, without waiting for compaction, whose
 * messages go to the harness over stdout ({@link Frames}), which commits them as Flink's committer
 * would. The harness drives the rate search over stdin: a line {@value #NEXT} starts the next
 * stair, {@value #STOP} ends the run (so does the end of stdin: the harness is gone).
 *
 * <p>The child's heap holds the write and its rows alone, so its live heap after a full collection
 * minus its baseline ({@link LiveHeap#settled} before the write opens, the table and the row source
 * already loaded) is the write's, measured from outside its accounting ({@link LiveHeapSampler}, the same for
 * every setting, governed or plain). At the
 * end it writes its numbers to the result file ({@link #readResult}), one {@code key=value} a line.
 *
 * <p>Not thread-safe; one run per JVM. A failure prints a line starting {@value #FAILED} on stderr
 * and exits with 1.
 */
public final class LagChild {

    /** The line on stderr before a failure's one-line reason. */
    static final String FAILED = "LAG-CHILD-FAILED";
    /** Plain Paimon with the table options the governed write sets under the same budget. */
    static final String PLAIN = "plain";
    /** Plain Paimon with the table as created: Paimon's defaults. */
    static final String PLAIN_DEFAULTS = "plain-defaults";
    /** The command that starts the next stair. */
    static final String NEXT = "next";
    /** The command that ends the run. */
    static final String STOP = "stop";
    /** Resolution of the written-rows record. */
    static final long TICK_MILLIS = 10;

    private LagChild() {}

    /** Whether {@code line} is one of the governed settings, a {@code compaction.task-threads} value. */
    static boolean governed(String line) {
        return !PLAIN.equals(line) && !PLAIN_DEFAULTS.equals(line);
    }

    /** Arguments: {@code key=value} pairs, {@link LagRun.Settings#childArgs}. */
    public static void main(String[] args) {
        // stdout carries the frames; anything a library prints goes to stderr.
        DataOutputStream frames = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        try {
            Map<String, String> a = new HashMap<>();
            for (String arg : args) {
                String[] kv = arg.split("=", 2);
                a.put(kv[0], kv[1]);
            }
            run(LagRun.Settings.fromChildArgs(a), Path.of(a.get("warehouse")), Path.of(a.get("spill")), Path.of(a.get("result")), frames);
            System.exit(0);
        } catch (Throwable t) {
            System.err.println(FAILED + " " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replaceAll("\\s+", " "));
            t.printStackTrace();
            System.exit(1);
        }
    }

    /** The write under measure: the governed one or plain Paimon's. */
    private interface Write extends AutoCloseable {
        void write(org.apache.paimon.data.InternalRow row) throws Exception;

        List<CommitMessage> prepareCommit(long id) throws Exception;

        /** The governed write's metrics; null for plain Paimon. */
        MetricsSnapshot metrics();
    }

    private static void run(LagRun.Settings s, Path warehouse, Path spill, Path result, DataOutputStream frames) throws Exception {
        FileStoreTable table = LagTable.table(warehouse);
        LagTable.Rows rows = new LagTable.Rows(s.seed(), s.keys());
        rows.next(0); // loads the values' arena before the baseline
        long baseline = LiveHeap.settled();
        Commands commands = new Commands();
        // The same rule as every other outside heap figure: periodic collections and one at each
        // old-generation high a thirty-second of the budget above the last (LiveHeapSampler).
        LiveHeapSampler heap = new LiveHeapSampler(s.heapSampleMillis(), s.budgetBytes() / 32, null);
        long gcBefore = gcMillis();
        heap.start();
        Feed feed;
        MetricsSnapshot metrics;
        try (Write write = open(table, s, spill)) {
            feed = feed(write, s, rows, commands, frames);
            heap.sampleNow();
            heap.stop();
            metrics = write.metrics();
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rowsWritten", feed.rows);
        r.put("ranMillis", feed.ranMillis);
        r.put("baselineBytes", baseline);
        r.put("peakBytes", heap.peakBytes());
        r.put("heapSamples", heap.samples());
        r.put("gcMillis", gcMillis() - gcBefore);
        if (metrics != null) {
            r.put("peakReservedBytes", metrics.peakReservedBytes());
            r.put("compactionCount", metrics.compactionCount());
            r.put("compactionBusyRatio", metrics.compactionBusyRatio());
            r.put("spillCount", metrics.spillCount());
        }
        r.put("stairStarts", feed.stairStarts.stream().map(String::valueOf).collect(Collectors.joining(",")));
        r.put("prepareMillis", feed.prepareMillis.stream().map(String::valueOf).collect(Collectors.joining(",")));
        r.put("writtenByTick", java.util.Arrays.stream(feed.writtenByTick).mapToObj(String::valueOf).collect(Collectors.joining(",")));
        Files.writeString(result, r.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n")) + "\n");
        Frames.writeEnd(frames);
    }

    /** The result file of a child as {@code key -> value}. */
    static Map<String, String> readResult(Path result) throws java.io.IOException {
        Map<String, String> r = new HashMap<>();
        for (String line : Files.readAllLines(result)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                r.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return r;
    }

    private static Write open(FileStoreTable table, LagRun.Settings s, Path spill) {
        String user = "bench-lag-" + s.line();
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(s.budgetBytes()));
        values.put(GovernanceOptions.SPILL_DIRS, spill.toString());
        if (governed(s.line())) {
            values.put(GovernanceOptions.COMPACTION_TASK_THREADS, s.line());
            ResourceContext context = ResourceContext.open(user, new HeapGovernanceProvider(), GovernanceOptions.of(values),
                    EngineEnvironment.standalone());
            GovernedTableWrite write = GovernedTableWrite.stream(table, user, context);
            return new Write() {
                public void write(org.apache.paimon.data.InternalRow row) throws Exception {
                    write.write(row);
                }

                public List<CommitMessage> prepareCommit(long id) throws Exception {
                    return write.prepareCommit(false, id).handOff();
                }

                public MetricsSnapshot metrics() {
                    return write.metrics();
                }

                public void close() throws Exception {
                    try (context) {
                        write.close();
                    }
                }
            };
        }
        FileStoreTable plain = PLAIN.equals(s.line()) ? table.copy(matchedOptions(table, s.budgetBytes(), values)) : table;
        IOManager io = IOManager.create(spill.toString());
        StreamTableWrite write = plain.newStreamWriteBuilder().withCommitUser(user).newWrite();
        write.withIOManager(io);
        // Paimon's own compaction thread, as Paimon would make it (one per write), but ended before the
        // IOManager deletes its directories: Paimon's close interrupts the thread without waiting, and a
        // compaction still spilling then makes that delete fail ("failed to properly clean up temp file
        // directory"), which ended a run of LagRunCommitsTest with nothing wrong in the measurement.
        ExecutorService compactions = Executors.newSingleThreadExecutor(r -> new Thread(r, "lag-plain-compaction"));
        ((TableWriteImpl<?>) write).withCompactExecutor(compactions);
        return new Write() {
            public void write(org.apache.paimon.data.InternalRow row) throws Exception {
                write.write(row);
            }

            public List<CommitMessage> prepareCommit(long id) throws Exception {
                return write.prepareCommit(false, id);
            }

            public MetricsSnapshot metrics() {
                return null;
            }

            public void close() throws Exception {
                try (io) {
                    try {
                        write.close();
                    } finally {
                        compactions.shutdownNow();
                        if (!compactions.awaitTermination(1, TimeUnit.MINUTES)) {
                            throw new IllegalStateException("Paimon's compaction thread did not end within a minute of the close");
                        }
                    }
                }
            }
        };
    }

    /**
     * What plain Paimon is given beside the governed write: every table option the governed write
     * sets under the same budget ({@link WriteFootprint#tableOptions}: page size, lookup cache, row
     * group, spill fan-in, synchronous file writes, spillable buffer), and a write buffer
     * ({@code write-buffer-size}) of the whole budget, the most the governed write's buffers hold.
     */
    static Map<String, String> matchedOptions(FileStoreTable table, long budgetBytes, Map<String, String> governance) {
        Map<String, String> options = new HashMap<>(
                WriteFootprint.plan(table, budgetBytes, GovernanceOptions.of(governance).pageSize()).tableOptions());
        options.put(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(budgetBytes));
        return options;
    }

    /**
     * How the feed ended.
     *
     * @param rows rows written
     * @param ranMillis from the schedule's start to the feed's end
     * @param prepareMillis each prepareCommit's duration
     * @param writtenByTick rows written before each {@value #TICK_MILLIS} ms tick of the run
     * @param stairStarts when each stair started, ms from the schedule's start
     */
    private record Feed(long rows, long ranMillis, List<Long> prepareMillis, long[] writtenByTick, List<Long> stairStarts) {}

    /** The writing thread's loop: rows as they arrive (as fast as it goes without a staircase), a prepareCommit every checkpoint. */
    private static Feed feed(Write write, LagRun.Settings s, LagTable.Rows rows, Commands commands, DataOutputStream frames)
            throws Exception {
        long start = System.currentTimeMillis();
        commands.begin(start, s.staircase());
        Frames.writeStart(frames, start);
        long end = start + s.maxMillis();
        long nextCheckpoint = start + s.checkpointMillis();
        long checkpoint = 1;
        long written = 0;
        List<Long> durations = new ArrayList<>();
        long[] byTick = new long[(int) (s.maxMillis() / TICK_MILLIS) + 2];
        int tick = 0;
        long now = start;
        for (; now < end && !commands.stopped; now = System.currentTimeMillis()) {
            for (; tick < byTick.length && start + tick * TICK_MILLIS <= now; tick++) {
                byTick[tick] = written;
            }
            if (now >= nextCheckpoint) {
                long before = System.nanoTime();
                List<CommitMessage> messages = write.prepareCommit(checkpoint);
                long millis = (System.nanoTime() - before) / 1_000_000;
                durations.add(millis);
                Frames.writeCheckpoint(frames, new Frames.Checkpoint(checkpoint++, written, millis, messages));
                while (nextCheckpoint <= System.currentTimeMillis()) {
                    nextCheckpoint += s.checkpointMillis();
                }
                continue;
            }
            Arrivals arrivals = commands.arrivals;
            int batch = 256;
            if (arrivals != null) {
                long due = arrivals.arrivedBy(now) - written;
                if (due < 1) {
                    long waitMillis = Math.min(nextCheckpoint, arrivals.arrivalMillis(written)) - now;
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(10, waitMillis))));
                    continue;
                }
                batch = (int) Math.min(batch, due);
            }
            for (int i = 0; i < batch; i++) {
                write.write(rows.next(arrivals != null ? arrivals.arrivalMillis(written + i) : System.currentTimeMillis()));
            }
            written += batch;
        }
        for (; tick < byTick.length; tick++) {
            byTick[tick] = written;
        }
        return new Feed(written, now - start, durations, byTick, commands.stairStarts());
    }

    /**
     * Reads the harness's commands from stdin on a daemon thread: {@value #NEXT} moves the schedule to
     * the next stair's rate from now on, {@value #STOP} (or the end of stdin: the harness is gone)
     * stops the feed.
     */
    private static final class Commands extends Thread {
        volatile boolean stopped;
        /** The arrival schedule so far; null without a staircase. Replaced, never changed. */
        volatile Arrivals arrivals;
        private final List<Long> starts = new ArrayList<>();
        private long start;
        private Staircase staircase;

        Commands() {
            super("lag-child-commands");
            setDaemon(true);
        }

        /** Starts reading once the schedule has its start (epoch ms). */
        void begin(long startMillis, Staircase stairs) {
            synchronized (this) {
                this.start = startMillis;
                this.staircase = stairs;
                if (stairs != null) {
                    starts.add(0L);
                    arrivals = schedule();
                }
            }
            start();
        }

        @Override
        public void run() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null && !STOP.equals(line); line = in.readLine()) {
                    if (NEXT.equals(line)) {
                        next();
                    }
                }
            } catch (java.io.IOException ignored) {
                // stdin gone: the harness is gone too
            }
            stopped = true;
        }

        private synchronized void next() {
            if (staircase != null && starts.size() < staircase.stairs()) {
                starts.add(Math.max(starts.get(starts.size() - 1) + 1, System.currentTimeMillis() - start));
                arrivals = schedule();
            }
        }

        private Arrivals schedule() {
            long[] from = new long[starts.size()];
            double[] rates = new double[starts.size()];
            for (int i = 0; i < from.length; i++) {
                from[i] = starts.get(i);
                rates[i] = staircase.rates().get(i);
            }
            return new Arrivals(start, from, rates);
        }

        synchronized List<Long> stairStarts() {
            return List.copyOf(starts);
        }
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }
}
