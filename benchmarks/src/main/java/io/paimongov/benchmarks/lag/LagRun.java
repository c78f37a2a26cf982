package io.paimongov.benchmarks.lag;

import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;

/**
 * One streaming run of the lag table with one {@code compaction.task-threads} setting, as a
 * streaming engine runs it: a writing thread (the only caller of the governed write) that feeds
 * rows at the offered rate and prepares a commit every checkpoint interval without waiting for
 * compaction, a committing thread that commits each checkpoint's messages with Paimon's {@code
 * StreamTableCommit} (as Flink's committer does), and a probe thread that looks at the table every
 * probe interval ({@link LagProbe}).
 *
 * <p>Open loop: at an offered rate, rows arrive on a fixed schedule ({@link Arrivals}) and carry their
 * arrival time as {@code ts}, as records in a log a streaming source reads; the writer writes what
 * has arrived as fast as it can. When compaction falls behind, Paimon's writer stalls its flush (more
 * sorted runs than {@code num-sorted-run.stop-trigger}), the writer falls behind the schedule as a
 * back-pressured Flink source falls behind its log, and the lag a reader sees includes that backlog
 * (it grows with the run's length for as long as the setting cannot keep up). Without a rate (the
 * calibration) a row's {@code ts} is the time the writer wrote it.
 *
 * <p>Not thread-safe; {@link #run} starts and joins its own threads.
 */
final class LagRun {

    /**
     * @param threads the {@code governance.compaction.task-threads} value: "1", "2" or "-1"
     * @param offeredRowsPerSec the arrival rate ({@link Arrivals}); 0 for as fast as the writer goes
     * @param durationMillis how long the writer writes
     * @param checkpointMillis the interval of prepareCommit + commit
     * @param probeMillis the interval of probes
     * @param crossCheckEvery every n-th probe also reads the new rows to check the statistics
     * @param budgetBytes the governed budget
     * @param keys key space
     * @param seed row seed
     */
    record Settings(String threads, double offeredRowsPerSec, long durationMillis, long checkpointMillis, long probeMillis,
            int crossCheckEvery, long budgetBytes, int keys, long seed) {}

    /**
     * @param series lag and level-0 files over the run
     * @param rowsWritten rows the writer wrote
     * @param checkpointMillis each prepareCommit's duration
     * @param metrics the governed write's final metrics
     * @param probeMismatches cross-checks where the rows' newest ts differed from the statistics'
     * @param crossChecks cross-checks made
     * @param gcShare share of the run the JVM's collectors reported as collection time
     * @param writtenByTick rows written before each {@value #TICK_MILLIS} ms tick of the run
     * @param commits the checkpoints committed, in order
     */
    record Result(Settings settings, LagSeries series, long rowsWritten, List<Long> checkpointMillis,
            MetricsSnapshot metrics, int probeMismatches, int crossChecks, double gcShare, long[] writtenByTick, List<Commit> commits) {

        double achievedRowsPerSec() {
            return rowsWritten * 1000.0 / settings.durationMillis();
        }

        /**
         * Rows per second that became visible to a batch reader over {@code [fromMillis, toMillis]}: at
         * each probe, the rows written up to the newest visible {@code ts} (within a tick), from the
         * last probe at or before each end. With a writer that outruns compaction this is the rate
         * compaction drains level 0, whether or not back-pressure has set in yet. 0 without probes.
         * Meant for a run without a rate, where a row's {@code ts} is the time it was written.
         */
        double visibleRowsPerSec(long fromMillis, long toMillis) {
            LagSeries.Sample from = lastAtOrBefore(fromMillis);
            LagSeries.Sample to = lastAtOrBefore(toMillis);
            if (from == null || to == null || to.millis() <= from.millis()) {
                return 0;
            }
            return (writtenBefore(to) - writtenBefore(from)) * 1000.0 / (to.millis() - from.millis());
        }

        /** Rows per second the writer wrote over {@code [fromMillis, toMillis)} of the run (within a tick). */
        double writtenRowsPerSec(long fromMillis, long toMillis) {
            int from = (int) Math.min(writtenByTick.length - 1, fromMillis / TICK_MILLIS);
            int to = (int) Math.min(writtenByTick.length - 1, toMillis / TICK_MILLIS);
            return to <= from ? 0 : (writtenByTick[to] - writtenByTick[from]) * 1000.0 / ((to - from) * TICK_MILLIS);
        }

        /**
         * Rows per second compaction moved out of level 0 over {@code (fromMillis, toMillis]}: the
         * level-0 files' rows a compaction committed in that span replaced, counted from the commit
         * messages (Paimon's own record of what each compaction read), in rows written (level-0 rows
         * times rows written over rows flushed up to the last commit; a flush merges a key's changes
         * within a checkpoint). In a deletion-vector table a row is visible to a batch reader once
         * it left level 0, so this is the rate compaction made rows visible, counted per file rather
         * than read off the lag's sawtooth. 0 without commits in the span.
         */
        double drainedRowsPerSec(long fromMillis, long toMillis) {
            long drained = 0;
            long flushed = 0;
            long written = 0;
            for (Commit c : commits) {
                if (c.millis() > fromMillis && c.millis() <= toMillis) {
                    drained += c.level0RowsCompacted();
                }
                flushed += c.level0RowsFlushed();
                written = c.rowsWritten();
            }
            if (toMillis <= fromMillis || flushed == 0) {
                return 0;
            }
            return drained * ((double) written / flushed) * 1000.0 / (toMillis - fromMillis);
        }

        /** When a probe first saw a row; -1 when none did. */
        long firstVisibleMillis() {
            return series.samples().stream().filter(s -> s.lagMillis() < s.millis()).mapToLong(LagSeries.Sample::millis).findFirst()
                    .orElse(-1);
        }

        private LagSeries.Sample lastAtOrBefore(long millis) {
            LagSeries.Sample last = null;
            for (LagSeries.Sample s : series.samples()) {
                if (s.millis() <= millis) {
                    last = s;
                }
            }
            return last;
        }

        /** Rows written before the newest visible ts of {@code s} (its time minus its lag). */
        private long writtenBefore(LagSeries.Sample s) {
            long tick = (s.millis() - s.lagMillis()) / TICK_MILLIS;
            return writtenByTick[(int) Math.max(0, Math.min(writtenByTick.length - 1, tick))];
        }
    }

    /** Resolution of {@link Result#writtenByTick}. */
    static final long TICK_MILLIS = 10;

    /**
     * A committed checkpoint.
     *
     * @param millis when its commit ended, from the run's start
     * @param rowsWritten rows the writer had written when it prepared the checkpoint
     * @param level0RowsFlushed rows of the level-0 files it added (the writer's flushes)
     * @param level0RowsCompacted rows of the level-0 files its compactions replaced
     */
    record Commit(long millis, long rowsWritten, long level0RowsFlushed, long level0RowsCompacted) {

        /** The commit of {@code messages}, ended at {@code millis}. */
        static Commit of(long millis, long rowsWritten, List<CommitMessage> messages) {
            long flushed = 0;
            long compacted = 0;
            for (CommitMessage m : messages) {
                CommitMessageImpl impl = (CommitMessageImpl) m;
                flushed += level0Rows(impl.newFilesIncrement().newFiles());
                compacted += level0Rows(impl.compactIncrement().compactBefore());
            }
            return new Commit(millis, rowsWritten, flushed, compacted);
        }

        private static long level0Rows(List<DataFileMeta> files) {
            return files.stream().filter(f -> f.level() == 0).mapToLong(DataFileMeta::rowCount).sum();
        }
    }

    private record Checkpoint(long id, long rowsWritten, List<CommitMessage> messages) {}

    private static final Checkpoint END = new Checkpoint(-1, 0, List.of());

    private LagRun() {}

    /**
     * Runs the setting on the table of {@code warehouse}, a new one that holds every key of the
     * setting's key space once ({@link LagTable#prepare}, a copy of one); spill scopes go under
     * {@code spillDir}. Rows of the table older than the run (the fill's) count as not yet seen:
     * until the first of the run's rows is visible the lag is the time since the run started.
     */
    static Result run(Path warehouse, Path spillDir, Settings s) throws Exception {
        FileStoreTable table = LagTable.table(warehouse);
        String user = "bench-lag-" + s.threads();
        BlockingQueue<Checkpoint> checkpoints = new LinkedBlockingQueue<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Commit> commits = new ArrayList<>();
        long gcBefore = gcMillis();
        long start = System.currentTimeMillis();
        Thread committer = new Thread(() -> commitAll(table, user, start, checkpoints, commits, failure), "bench-lag-committer");
        committer.setDaemon(true);
        Prober prober = new Prober(new LagProbe(table), s, start, failure);
        Thread probe = new Thread(prober, "bench-lag-probe");
        probe.setDaemon(true);
        committer.start();
        probe.start();
        GovernedTableWrite write = GovernedTableWrite.stream(table, user, context(s, spillDir));
        Feed feed;
        try (write) {
            feed = feed(write, s, start, checkpoints, failure);
        } finally {
            // offer, not put: after a cancel the writing thread's interrupt flag is set again.
            checkpoints.offer(END);
            prober.stop();
            joinUninterruptibly(committer);
            joinUninterruptibly(probe);
        }
        double gcShare = (gcMillis() - gcBefore) / (double) Math.max(1, System.currentTimeMillis() - start);
        if (failure.get() != null) {
            throw new IllegalStateException("bench lag: the " + (failure.get() instanceof ProbeFailure ? "probe" : "committer")
                    + " failed with task-threads " + s.threads(), failure.get());
        }
        return new Result(s, prober.series.build(), feed.rows, feed.checkpointMillis, write.metrics(),
                prober.mismatches, prober.crossChecks, gcShare, feed.writtenByTick, List.copyOf(commits));
    }

    /** Waits for {@code t}; an interrupt meanwhile is kept for the caller (the run is being cancelled). */
    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (t.isAlive()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static ResourceContext context(Settings s, Path spillDir) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(s.budgetBytes()));
        values.put(GovernanceOptions.SPILL_DIRS, spillDir.toString());
        values.put(GovernanceOptions.COMPACTION_TASK_THREADS, s.threads());
        return ResourceContext.open("bench-lag-" + s.threads(), new HeapGovernanceProvider(), GovernanceOptions.of(values),
                EngineEnvironment.standalone());
    }

    private record Feed(long rows, List<Long> checkpointMillis, long[] writtenByTick) {}

    /** The writing thread's loop: rows at the offered rate, a prepareCommit every checkpoint interval. */
    private static Feed feed(GovernedTableWrite write, Settings s, long start, BlockingQueue<Checkpoint> checkpoints,
            AtomicReference<Throwable> failure) throws Exception {
        LagTable.Rows rows = new LagTable.Rows(s.seed(), s.keys());
        Arrivals arrivals = s.offeredRowsPerSec() > 0 ? new Arrivals(start, s.offeredRowsPerSec()) : null;
        long end = start + s.durationMillis();
        long nextCheckpoint = start + s.checkpointMillis();
        long checkpoint = 1;
        long written = 0;
        List<Long> durations = new ArrayList<>();
        long[] byTick = new long[(int) (s.durationMillis() / TICK_MILLIS) + 2];
        int tick = 0;
        for (long now = start; now < end && failure.get() == null; now = System.currentTimeMillis()) {
            for (; tick < byTick.length && start + tick * TICK_MILLIS <= now; tick++) {
                byTick[tick] = written;
            }
            if (now >= nextCheckpoint) {
                long before = System.nanoTime();
                List<CommitMessage> messages = write.prepareCommit(false, checkpoint).handOff();
                durations.add((System.nanoTime() - before) / 1_000_000);
                checkpoints.put(new Checkpoint(checkpoint++, written, messages));
                while (nextCheckpoint <= System.currentTimeMillis()) {
                    nextCheckpoint += s.checkpointMillis();
                }
                continue;
            }
            int batch = 256;
            if (arrivals != null) {
                long due = arrivals.arrivedBy(now) - written;
                if (due < 1) {
                    long waitMillis = Math.min(nextCheckpoint, arrivals.arrivalMillis(written)) - now;
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(1, waitMillis)));
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
        return new Feed(written, durations, byTick);
    }

    /** The committing thread's loop; {@code commits} is its own until it ends (read after a join). */
    private static void commitAll(FileStoreTable table, String user, long start, BlockingQueue<Checkpoint> checkpoints,
            List<Commit> commits, AtomicReference<Throwable> failure) {
        try (StreamTableCommit commit = table.newStreamWriteBuilder().withCommitUser(user).newCommit()) {
            for (Checkpoint c = checkpoints.take(); c != END; c = checkpoints.take()) {
                if (failure.get() == null) {
                    commit.commit(c.id(), c.messages());
                    commits.add(Commit.of(System.currentTimeMillis() - start, c.rowsWritten(), c.messages()));
                }
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    /** Marks a failure of the probe thread. */
    private static final class ProbeFailure extends RuntimeException {
        ProbeFailure(Throwable cause) {
            super(cause);
        }
    }

    /** The probe thread: a reading every probe interval, a row cross-check every n-th. */
    private static final class Prober implements Runnable {
        private final LagProbe probe;
        private final Settings s;
        private final long start;
        private final AtomicReference<Throwable> failure;
        private final LagSeries.Builder series = new LagSeries.Builder();
        private volatile boolean stopped;
        private int mismatches;
        private int crossChecks;

        Prober(LagProbe probe, Settings s, long start, AtomicReference<Throwable> failure) {
            this.probe = probe;
            this.s = s;
            this.start = start;
            this.failure = failure;
        }

        void stop() {
            stopped = true;
        }

        @Override
        public void run() {
            long checked = LagProbe.NONE;
            try {
                for (int n = 0; !stopped && failure.get() == null; n++) {
                    LagProbe.Reading r = probe.read();
                    long now = System.currentTimeMillis();
                    series.add(now - start, now - Math.max(start, r.newestTs()), r.level0Files());
                    if (s.crossCheckEvery() > 0 && n % s.crossCheckEvery() == 0 && r.snapshotId() >= 0) {
                        long byRows = probe.newestByRows(r, checked);
                        crossChecks++;
                        if (byRows != r.newestTs()) {
                            mismatches++;
                        }
                        checked = byRows;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(1, start + (n + 1) * s.probeMillis() - System.currentTimeMillis())));
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, new ProbeFailure(t));
            }
        }
    }
}
