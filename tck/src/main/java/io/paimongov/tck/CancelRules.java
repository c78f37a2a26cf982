package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.WriteCancelledException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Reporter;
import net.jqwik.api.constraints.IntRange;

/** CANCEL-*: a cancel at any point stops the write promptly and leaves nothing behind. */
interface CancelRules extends TckWrites {

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_1)
    default void required_CANCEL1_aCancelIsSeenWithinTheBound(
            @ForAll @IntRange(min = 1, max = 99) int percent, @ForAll boolean inPrepare, @ForAll long seed, Reporter reporter)
            throws Exception {
        TckRun run = cancelled(percent, inPrepare, seed);
        if (run.outcome == TckRun.Outcome.COMMITTED && !run.cancelledMidWrite()) {
            // The write finished before the cancel came: nothing to judge in this try.
            return;
        }
        check(Rule.CANCEL_1, run.outcome == TckRun.Outcome.CANCELLED && run.error instanceof WriteCancelledException,
                "a cancelled write ended with " + run.describe());
        long millis = TimeUnit.NANOSECONDS.toMillis(run.cancelLatencyNanos);
        reporter.publishValue("cancel latency ms", Long.toString(millis));
        long bound = settings().cancelBoundMillis();
        check(Rule.CANCEL_1, run.cancelLatencyNanos >= 0 && millis <= bound,
                "the cancel took " + millis + " ms to be seen; the bound is " + bound + " ms (governance.tck.cancel-bound-ms)");
    }

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_2)
    default void required_CANCEL2_noSnapshotAndNoDataFileAfterACancel(
            @ForAll @IntRange(min = 1, max = 99) int percent, @ForAll boolean inPrepare, @ForAll long seed) throws Exception {
        TckRun run = cancelled(percent, inPrepare, seed);
        if (run.outcome == TckRun.Outcome.COMMITTED && !run.cancelledMidWrite()) {
            return;
        }
        // A write cancelled while rows were still to come that commits anyway published what it
        // should not have: its snapshot and files are the leftovers this rule is about.
        check(Rule.CANCEL_2, run.outcome != TckRun.Outcome.COMMITTED,
                "the write was cancelled while rows were still to be written, yet it committed: " + run.describe());
        check(Rule.CANCEL_2, run.problemsAbout("snapshot", "data files").isEmpty(),
                "after a cancel: " + run.problemsAbout("snapshot", "data files"));
    }

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_3)
    default void required_CANCEL3_reservationsAndEngineMemoryAreBackAfterACancel(
            @ForAll @IntRange(min = 1, max = 99) int percent, @ForAll boolean inPrepare, @ForAll long seed) throws Exception {
        TckRun run = cancelled(percent, inPrepare, seed);
        List<String> memory = run.problemsAbout("reserved", "memory counter", "allocator held");
        check(Rule.CANCEL_3, memory.isEmpty(), "after a cancel: " + memory);
    }

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_4)
    default void required_CANCEL4_noThreadIsLeftRunningAfterACancel(
            @ForAll @IntRange(min = 1, max = 99) int percent, @ForAll boolean inPrepare, @ForAll long seed) throws Exception {
        TckRun run = cancelled(percent, inPrepare, seed);
        List<String> threads = run.problems.stream().filter(p -> p.startsWith("thread")).toList();
        check(Rule.CANCEL_4, threads.isEmpty(), "after a cancel: " + threads);
    }

    @Property
    @Heavy
    @Verifies(Rule.CANCEL_5)
    default void optional_CANCEL5_theEnginesOwnCancelStopsTheWrite(@ForAll @IntRange(min = 1, max = 99) int percent, @ForAll long seed)
            throws Exception {
        Sized sized = spilling(seed);
        TckRun run = write(sized, new TckRun.Plan(TckRun.Event.ENGINE_CANCEL_AT_ROW, sized.workload().rows() * percent / 100));
        if (run.outcome == TckRun.Outcome.COMMITTED && !run.cancelledMidWrite()) {
            // The write finished before the engine's cancel came: nothing to judge in this try.
            return;
        }
        check(Rule.CANCEL_5, run.outcome == TckRun.Outcome.CANCELLED && run.error instanceof WriteCancelledException,
                "the engine cancelled at " + percent + "% of the rows, yet the write ended with " + run.describe());
        check(Rule.CANCEL_5, run.problems.isEmpty(), "after the engine's cancel, left behind: " + run.problems);
    }
}
