package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;
import static io.paimongov.tck.TckWrites.judge;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.WriteCancelledException;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Reporter;
import net.jqwik.api.constraints.IntRange;
import org.apache.paimon.table.FileStoreTable;

/** CANCEL-*: a cancel at any point stops the write promptly and leaves nothing behind. */
interface CancelRules extends TckWrites {

    /**
     * {@code max(100, governance.tck.tries)} short writes, each cancelled from another thread at the
     * entry of one of its first page allocations or at a row ({@link CancelLatency}): every one must
     * throw WriteCancelledException, and the 99th percentile of the time from the cancel to that
     * throw must be within governance.tck.cancel-bound-ms (docs/spi.md CANCEL.4).
     */
    @Example
    @Verifies(Rule.CANCEL_1)
    default void required_CANCEL1_aCancelIsSeenWithinTheBound(Reporter reporter) throws Exception {
        int rounds = Math.max(100, settings().tries());
        long bound = settings().cancelBoundMillis();
        Workload shape = new Workload(101, 3_000, 3_000, 2, 4, "deduplicate", "avro", 64);
        CancelLatency.Result result;
        try (TckSubject s = subject(4 << 20)) {
            result = CancelLatency.measure(s, shape, s.options("governance.memory.page-size", "16k"), rounds, bound, 101);
        }
        check(Rule.CANCEL_1, result.notCancelled().isEmpty(),
                result.notCancelled().size() + " cancelled writes did not end with WriteCancelledException: " + result.notCancelled());
        long p99 = result.p99Millis();
        reporter.publishValue("cancel latency ms", "p99 " + p99 + ", max " + result.maxMillis() + " over " + result.nanos().size() + " cancels");
        check(Rule.CANCEL_1, p99 >= 0 && p99 <= bound,
                "the cancel took " + p99 + " ms to be seen at the 99th percentile of " + result.nanos().size() + " cancels (max "
                        + result.maxMillis() + " ms); the bound is " + bound + " ms (governance.tck.cancel-bound-ms)");
    }

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_2)
    default void required_CANCEL2_noSnapshotAndNoDataFileAfterACancel(
            @ForAll @IntRange(min = 1, max = 99) int percent, @ForAll boolean inPrepare, @ForAll long seed) throws Exception {
        TckRun run = cancelled(percent, inPrepare, seed);
        judge(Rule.CANCEL_2, () -> {
            if (run.outcome == TckRun.Outcome.COMMITTED && !run.cancelledMidWrite()) {
                // The write finished before the cancel came: nothing to judge in this try but its close.
                return;
            }
            // A write cancelled while rows were still to come that commits anyway published what it
            // should not have: its snapshot and files are the leftovers this rule is about.
            check(Rule.CANCEL_2, run.outcome != TckRun.Outcome.COMMITTED,
                    "the write was cancelled while rows were still to be written, yet it committed: " + run.describe());
            check(Rule.CANCEL_2, run.problemsAbout("snapshot", "data files").isEmpty(),
                    "after a cancel: " + run.problemsAbout("snapshot", "data files"));
        }, run);
    }

    /**
     * The writing thread stops between two rows and the cancel comes then: the write is idle, so the
     * cancelling thread releases everything (CANCEL.5), not the thread that took it.
     */
    @Property
    @Heavy
    @Verifies(Rule.CANCEL_3)
    default void required_CANCEL3_reservationsAndEngineMemoryAreBackAfterACancel(
            @ForAll @IntRange(min = 1, max = 99) int percent, @ForAll long seed) throws Exception {
        Sized sized = spilling(seed);
        TckRun run = write(sized, new TckRun.Plan(TckRun.Event.CANCEL_IDLE, sized.workload().rows() * percent / 100));
        List<String> memory = run.problemsAbout("reserved", "memory counter", "allocator held");
        judge(Rule.CANCEL_3, () -> {
            check(Rule.CANCEL_3, run.outcome == TckRun.Outcome.CANCELLED,
                    "the write cancelled while idle at " + percent + "% of the rows ended with " + run.describe());
            check(Rule.CANCEL_3, memory.isEmpty(), "after a cancel released on the cancelling thread: " + memory);
        }, run);
    }

    /**
     * A table with a compaction backlog in every bucket, written (5000 rows, 2 partitions, 4
     * buckets) with two compaction threads, and the cancel {@code millis} after the engine's
     * compaction factory made its first thread: the rule judges threads that were really made.
     */
    @Property
    @Heavy
    @Verifies(Rule.CANCEL_4)
    default void required_CANCEL4_noThreadIsLeftRunningAfterACancel(
            @ForAll @IntRange(min = 0, max = 30) int millis, @ForAll long seed) throws Exception {
        // Compaction starts at the latest when prepareCommit flushes the backlogged buckets, so a
        // short write does: the threads are the subject here, not the spill.
        Sized sized = new Sized(new Workload(seed, 5_000, 5_000, 2, 4, "deduplicate", "avro", 64), "4m", "16k");
        TckRun run;
        try (TckSubject s = subject(sized.budgetBytes())) {
            FileStoreTable table = sized.workload().createTable(s.warehouse, "t");
            Backlog.fill(table, sized.workload(), 6);
            GovernanceOptions options = s.options(
                    "governance.memory.page-size", sized.pageSize(), GovernanceOptions.COMPACTION_TASK_THREADS, "2");
            run = TckRun.runOn(s, sized.workload(), table, "t", options, new TckRun.Plan(TckRun.Event.CANCEL_AT_COMPACTION, millis));
            run.problems = run.leftovers(s, run.outcome == TckRun.Outcome.COMMITTED);
        }
        TckRun cancelled = run;
        List<String> threads = run.problems.stream().filter(p -> p.startsWith("thread")).toList();
        judge(Rule.CANCEL_4, () -> {
            check(Rule.CANCEL_4, cancelled.compactionThreadsMade > 0,
                    "the engine's compaction factory made no thread before the write ended (" + cancelled.describe()
                            + "), so none could be seen to end");
            check(Rule.CANCEL_4, threads.isEmpty(),
                    "after a cancel " + millis + " ms into compaction (" + cancelled.compactionThreadsMade + " compaction threads made; "
                            + cancelled.describe() + "): " + threads);
        }, run);
    }

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_5)
    default void optional_CANCEL5_theEnginesOwnCancelStopsTheWrite(@ForAll @IntRange(min = 1, max = 99) int percent, @ForAll long seed)
            throws Exception {
        Sized sized = spilling(seed);
        TckRun run = write(sized, new TckRun.Plan(TckRun.Event.ENGINE_CANCEL_AT_ROW, sized.workload().rows() * percent / 100));
        judge(Rule.CANCEL_5, () -> {
            if (run.outcome == TckRun.Outcome.COMMITTED && !run.cancelledMidWrite()) {
                // The write finished before the engine's cancel came: nothing to judge in this try but its close.
                return;
            }
            check(Rule.CANCEL_5, run.outcome == TckRun.Outcome.CANCELLED && run.error instanceof WriteCancelledException,
                    "the engine cancelled at " + percent + "% of the rows, yet the write ended with " + run.describe());
            check(Rule.CANCEL_5, run.problems.isEmpty(), "after the engine's cancel, left behind: " + run.problems);
        }, run);
    }

    /**
     * {@link EngineRegistrations#WRITES} small writes one after another on one engine, every
     * {@link EngineRegistrations#CANCEL_EVERY}th cancelled: the engine's registrations ({@code
     * StandaloneEngine.registrations()}) after the last are what they were after the first
     * (docs/spi.md RES.5).
     */
    @Example
    @Verifies(Rule.CANCEL_6)
    default void required_CANCEL6_noEngineRegistrationOutlivesItsWrite() throws Exception {
        EngineRegistrations.Counts counts;
        try (TckSubject s = subject(4 << 20)) {
            counts = EngineRegistrations.count(s);
        }
        List<String> grown = counts.grown();
        check(Rule.CANCEL_6, grown.isEmpty(),
                "after the first of " + EngineRegistrations.WRITES + " writes on one engine (every " + EngineRegistrations.CANCEL_EVERY
                        + "th cancelled) the engine held " + counts.afterFirst() + ", after the last " + counts.afterLast() + ": "
                        + String.join(", ", grown) + ", registered for writes that have closed (before the first write: "
                        + counts.before() + ")");
    }
}
