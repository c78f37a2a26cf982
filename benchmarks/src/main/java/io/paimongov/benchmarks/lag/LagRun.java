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
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;

/**
 * One streaming run of the lag table with one {@code compaction.task-threads} setting, as a
 * streaming engine runs it: a writing thread (the only caller of the governed write) that feeds
 * rows at the offered rate and prepares a commit every checkpoint interval without waiting for
 * compaction, a committing thread that commits each checkpoint's messages with Paimon's {@code
 * StreamTableCommit} (as Flink's committer does), and a probe thread that looks at the table every
 * probe interval ({@link LagProbe}).
 *
 * <p>Closed loop: a row's {@code ts} is the time the writer handed it to the write, and the offered
 * rate is a token bucket holding at most one checkpoint's rows. When compaction falls behind,
 * Paimon's writer stalls its flush (more sorted runs than {@code num-sorted-run.stop-trigger}) and
 * the writer achieves less than offered, as a back-pressured Flink source does; the lag then stays
 * bounded instead of growing with the run's length.
 *
 * <p>Not thread-safe; {@link #run} starts and joins its own threads.
 */
final class LagRun {

    /**
     * @param threads the {@code governance.compaction.task-threads} value: "1", "2" or "-1"
     * @param offeredRowsPerSec the token bucket's rate; 0 for as fast as the writer goes
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
     * @param rowsSecondHalf rows written in the second half of the run
     * @param checkpointMillis each prepareCommit's duration
     * @param metrics the governed write's final metrics
     * @param probeMismatches cross-checks where the rows' newest ts differed from the statistics'
     * @param crossChecks cross-checks made
     * @param gcShare share of the run the JVM's collectors reported as collection time
     */
    record Result(Settings settings, LagSeries series, long rowsWritten, long rowsSecondHalf, List<Long> checkpointMillis,
            MetricsSnapshot metrics, int probeMismatches, int crossChecks, double gcShare) {

        double achievedRowsPerSec() {
            return rowsWritten * 1000.0 / settings.durationMillis();
        }
    }

    private record Checkpoint(long id, List<CommitMessage> messages) {}

    private static final Checkpoint END = new Checkpoint(-1, List.of());

    private LagRun() {}

    /** Runs the setting on a new table in {@code warehouse}; spill scopes go under {@code spillDir}. */
    static Result run(Path warehouse, Path spillDir, Settings s) throws Exception {
        FileStoreTable table = LagTable.create(warehouse);
        String user = "bench-lag-" + s.threads();
        BlockingQueue<Checkpoint> checkpoints = new LinkedBlockingQueue<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread committer = new Thread(() -> commitAll(table, user, checkpoints, failure), "bench-lag-committer");
        long gcBefore = gcMillis();
        long start = System.currentTimeMillis();
        Prober prober = new Prober(new LagProbe(table), s, start, failure);
        Thread probe = new Thread(prober, "bench-lag-probe");
        committer.start();
        probe.start();
        GovernedTableWrite write = GovernedTableWrite.stream(table, user, context(s, spillDir));
        Feed feed;
        try (write) {
            feed = feed(write, s, start, checkpoints, failure);
        } finally {
            checkpoints.put(END);
            committer.join();
            prober.stop();
            probe.join();
        }
        double gcShare = (gcMillis() - gcBefore) / (double) Math.max(1, System.currentTimeMillis() - start);
        if (failure.get() != null) {
            throw new IllegalStateException("bench lag: the " + (failure.get() instanceof ProbeFailure ? "probe" : "committer")
                    + " failed with task-threads " + s.threads(), failure.get());
        }
        return new Result(s, prober.series.build(), feed.rows, feed.rowsSecondHalf, feed.checkpointMillis, write.metrics(),
                prober.mismatches, prober.crossChecks, gcShare);
    }

    private static ResourceContext context(Settings s, Path spillDir) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(s.budgetBytes()));
        values.put(GovernanceOptions.SPILL_DIRS, spillDir.toString());
        values.put(GovernanceOptions.COMPACTION_TASK_THREADS, s.threads());
        return ResourceContext.open("bench-lag-" + s.threads(), new HeapGovernanceProvider(), GovernanceOptions.of(values),
                EngineEnvironment.standalone());
    }

    private record Feed(long rows, long rowsSecondHalf, List<Long> checkpointMillis) {}

    /** The writing thread's loop: rows at the offered rate, a prepareCommit every checkpoint interval. */
    private static Feed feed(GovernedTableWrite write, Settings s, long start, BlockingQueue<Checkpoint> checkpoints,
            AtomicReference<Throwable> failure) throws Exception {
        LagTable.Rows rows = new LagTable.Rows(s.seed(), s.keys());
        boolean limited = s.offeredRowsPerSec() > 0;
        double perMilli = s.offeredRowsPerSec() / 1000.0;
        double burst = Math.max(1, perMilli * s.checkpointMillis());
        double allowance = 0;
        long end = start + s.durationMillis();
        long half = start + s.durationMillis() / 2;
        long nextCheckpoint = start + s.checkpointMillis();
        long checkpoint = 1;
        long written = 0;
        long atHalf = -1;
        long last = start;
        List<Long> durations = new ArrayList<>();
        for (long now = start; now < end && failure.get() == null; now = System.currentTimeMillis()) {
            if (atHalf < 0 && now >= half) {
                atHalf = written;
            }
            if (now >= nextCheckpoint) {
                long before = System.nanoTime();
                List<CommitMessage> messages = write.prepareCommit(false, checkpoint).handOff();
                durations.add((System.nanoTime() - before) / 1_000_000);
                checkpoints.put(new Checkpoint(checkpoint++, messages));
                while (nextCheckpoint <= System.currentTimeMillis()) {
                    nextCheckpoint += s.checkpointMillis();
                }
                continue;
            }
            int batch = 256;
            if (limited) {
                allowance = Math.min(burst, allowance + (now - last) * perMilli);
                last = now;
                if (allowance < 1) {
                    long waitMillis = Math.min(nextCheckpoint - now, (long) Math.ceil((1 - allowance) / perMilli));
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(1, waitMillis)));
                    continue;
                }
                batch = (int) Math.min(batch, allowance);
                allowance -= batch;
            }
            for (int i = 0; i < batch; i++) {
                write.write(rows.next(System.currentTimeMillis()));
            }
            written += batch;
        }
        return new Feed(written, written - Math.max(0, atHalf), durations);
    }

    private static void commitAll(FileStoreTable table, String user, BlockingQueue<Checkpoint> checkpoints, AtomicReference<Throwable> failure) {
        try (StreamTableCommit commit = table.newStreamWriteBuilder().withCommitUser(user).newCommit()) {
            for (Checkpoint c = checkpoints.take(); c != END; c = checkpoints.take()) {
                if (failure.get() == null) {
                    commit.commit(c.id(), c.messages());
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
                    series.add(now - start, now - (r.newestTs() == LagProbe.NONE ? start : r.newestTs()), r.level0Files());
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
