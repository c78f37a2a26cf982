package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.EngineResources;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Example;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

/**
 * COMPACT-*: parallel compaction keeps each bucket serial and stays within its threads. A table of
 * 8 buckets gets a level-0 backlog from plain write-only commits; a governed write with a number of
 * compaction threads then touches every bucket and commits, draining the backlog.
 *
 * <p>The engine's thread factory is judged from outside the runtime: the kit hands the factory
 * the runtime's runnable inside one of its own ({@link ObservedProvider}) and counts how often each
 * thread ran it and how many threads were inside theirs at once. A thread pool's worker stays in
 * its runnable until the pool shuts down, so with a correct factory every thread it made runs its
 * runnable once and all of them are inside at once. A thread that never runs its runnable leaves
 * the task the pool gave it undone and the write waiting for it: the drain runs on a thread of the
 * kit, which watches for that.
 */
interface CompactionRules extends TckContext {

    int BUCKETS = 8;
    /** How long a started compaction thread may stay out of its runnable before the write counts as stuck. */
    long STUCK_SECONDS = 30;

    /**
     * Whether the table holds what it should, what the kit saw of the factory's threads and of the
     * buckets' files they read ({@link CompactionReads}), and what the write's close threw after the
     * commit (null when nothing): the rules judge the drain first and report that as a cleanup
     * failure after their verdict ({@link Cleanup#judgeThen}).
     */
    record Drain(
            boolean contentRight, List<Thread> threads, Map<Thread, Integer> runs, int peakThreads, java.util.Set<String> bucketsRead,
            List<String> bucketOverlaps, RuntimeException cleanup) {}

    /**
     * Drains the backlog with {@code threads} as the task-threads setting, on a thread of the
     * kit's; fails {@code rule} when a thread of the engine's factory ended, or stayed {@value
     * #STUCK_SECONDS} s after it started, without running its runnable.
     */
    default Drain drain(Rule rule, int threads) throws Exception {
        try (TckSubject s = subject(32L << 20)) {
            FutureTask<Drain> drain = new FutureTask<>(() -> drainIn(s, threads));
            Thread drainer = new Thread(drain, "tck-compact-drain");
            drainer.setDaemon(true);
            drainer.start();
            Map<Thread, Long> seenStarted = new IdentityHashMap<>();
            while (true) {
                try {
                    return drain.get(50, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                } catch (java.util.concurrent.TimeoutException e) {
                    String stuck = ranTwice(s.provider);
                    if (stuck == null) {
                        stuck = stuckThread(s.provider, seenStarted);
                    }
                    if (stuck != null) {
                        drainer.interrupt();
                        drainer.join(5_000);
                        throw new AssertionError(rule.fail(stuck));
                    }
                }
            }
        }
    }

    /**
     * A thread of the factory that ran its runnable more than once, described; null while there is
     * none. Seen as it happens: a pool worker run again after its pool shut down keeps the write's
     * close waiting for the pool (COMPACT.3's stop timeout), and the close's error would say
     * nothing of the thread.
     */
    private static String ranTwice(ObservedProvider provider) {
        for (Thread t : provider.threads()) {
            int runs = t == null ? 0 : provider.runs(t);
            if (runs > 1) {
                return "thread '" + t.getName() + "' of the engine's compaction factory ran the runnable it was given " + runs + " times";
            }
        }
        return null;
    }

    /** A thread of the factory that will not run its runnable, described; null while there is none. */
    private static String stuckThread(ObservedProvider provider, Map<Thread, Long> seenStarted) {
        long now = System.nanoTime();
        for (Thread t : provider.threads()) {
            if (t == null || provider.runs(t) > 0 || t.getState() == Thread.State.NEW) {
                continue;
            }
            if (t.getState() == Thread.State.TERMINATED) {
                return "thread '" + t.getName() + "' of the engine's compaction factory ended without running the task it was given"
                        + "; the write waits for that task";
            }
            long since = seenStarted.computeIfAbsent(t, x -> now);
            if (now - since > TimeUnit.SECONDS.toNanos(STUCK_SECONDS)) {
                return "thread '" + t.getName() + "' of the engine's compaction factory was started and has not run the task it was given "
                        + STUCK_SECONDS + " s later (it is " + t.getState() + "; " + provider.peakRunningThreads()
                        + " of the factory's threads ran at once); the write waits for that task";
            }
        }
        return null;
    }

    private Drain drainIn(TckSubject s, int threads) throws Exception {
        Workload shape = new Workload(1, 1, 1, 1, BUCKETS, "deduplicate", "parquet", 32);
        FileStoreTable table = shape.createTable(s.warehouse, "compact");
        Map<Long, Workload.Value> model = new HashMap<>();
        Random random = new Random(17);
        FileStoreTable writeOnly = table.copy(Map.of("write-only", "true"));
        for (int commit = 0; commit < 6; commit++) {
            BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit committer = builder.newCommit()) {
                for (int i = 0; i < 1500; i++) {
                    put(write, model, random.nextInt(4000), "c" + commit + "-" + i);
                }
                committer.commit(write.prepareCommit());
            }
        }
        ResourceContext context =
                ResourceContext.open(
                        "tck-compact", s.provider, s.options(GovernanceOptions.COMPACTION_TASK_THREADS, Integer.toString(threads)), s.environment());
        // The governed write sees the table through the kit's watch of its files: which bucket's
        // files each compaction thread reads, and when.
        CompactionReads.Watched watched = CompactionReads.watch(table, t -> s.provider.threads().contains(t));
        boolean committed = false;
        RuntimeException cleanup = null;
        try (GovernedTableWrite write = GovernedTableWrite.batch(watched.table(), context)) {
            for (int k = 0; k < 400; k++) {
                write.write(GenericRow.of(0, k, BinaryString.fromString("drain-" + k), (long) k));
                model.put(Workload.key(0, k), new Workload.Value("drain-" + k, (long) k));
            }
            write.prepareCommit().commit();
            committed = true;
        } catch (io.paimongov.spi.CleanupException e) {
            // The close after the commit: compaction threads that did not stop in time, say. Judged
            // after what the threads did, which is what the rules are about.
            if (!committed) {
                throw e;
            }
            cleanup = e;
        }
        // The pool shut down with the write; its threads end with their runnables (10 s at most each).
        List<Thread> made = new ArrayList<>();
        Map<Thread, Integer> runs = new IdentityHashMap<>();
        for (Thread t : s.provider.threads()) {
            if (t != null) {
                t.join(10_000);
                made.add(t);
                runs.put(t, s.provider.runs(t));
            }
        }
        return new Drain(Workload.read(table).equals(model), made, runs, s.provider.peakRunningThreads(), watched.reads().bucketsRead(),
                watched.reads().overlaps(), cleanup);
    }

    private static void put(BatchTableWrite write, Map<Long, Workload.Value> model, int k, String v) throws Exception {
        write.write(GenericRow.of(0, k, BinaryString.fromString(v), (long) k));
        model.put(Workload.key(0, k), new Workload.Value(v, (long) k));
    }

    /** What the provider's engine says it allows a write: maxThreads() of a freshly opened write's resources. */
    private int engineMaxThreads() {
        try (TckSubject s = subject(32L << 20)) {
            EngineResources probe = s.open();
            try {
                return probe.compaction().maxThreads();
            } finally {
                probe.close();
            }
        }
    }

    @Example
    @Verifies(Rule.COMPACT_1)
    default void required_COMPACT1_neverTwoCompactionsOfOneBucketAtOnce() throws Exception {
        Drain d = drain(Rule.COMPACT_1, 2);
        // Judged on what the kit saw of the files, not on the runtime's own count of its tasks.
        Cleanup.judgeThen(d.cleanup(), () -> {
            check(Rule.COMPACT_1, d.bucketsRead().size() == BUCKETS,
                    "compaction threads read the files of " + d.bucketsRead().size() + " of the " + BUCKETS + " buckets with a backlog: "
                            + d.bucketsRead());
            check(Rule.COMPACT_1, d.bucketOverlaps().isEmpty(),
                    "two compactions of one bucket ran at once, " + d.bucketOverlaps().size() + " times: "
                            + d.bucketOverlaps().subList(0, Math.min(3, d.bucketOverlaps().size())));
            for (Thread t : d.threads()) {
                int runs = d.runs().get(t);
                check(Rule.COMPACT_1, runs == 1 || t.isAlive(),
                        "thread '" + t.getName() + "' of the engine's compaction factory ran the runnable it was given " + runs + " times");
            }
            check(Rule.COMPACT_1, d.contentRight(), "after compaction the table does not hold what was written");
        });
    }

    @Example
    @Verifies(Rule.COMPACT_2)
    default void required_COMPACT2_concurrencyStaysWithinTheThreadSetting() throws Exception {
        int engineMax = engineMaxThreads();
        int setting = Math.min(engineMax, BUCKETS);
        Drain d = drain(Rule.COMPACT_2, setting);
        Cleanup.judgeThen(d.cleanup(), () -> {
            check(Rule.COMPACT_2, d.threads().size() <= setting,
                    "the engine's factory was asked for " + d.threads().size() + " threads; task-threads=" + setting + " and maxThreads() is " + engineMax);
            check(Rule.COMPACT_2, d.peakThreads() <= setting,
                    d.peakThreads() + " of the factory's threads ran at once; task-threads=" + setting + " and maxThreads() is " + engineMax);
            check(Rule.COMPACT_2, d.peakThreads() == setting,
                    "at most " + d.peakThreads() + " of the factory's threads (" + d.threads().size() + " made) ran at once with " + BUCKETS
                            + " buckets of backlog, task-threads=" + setting + " and maxThreads() " + engineMax
                            + ": the engine does not give the threads it says it allows");
        });
    }
}
