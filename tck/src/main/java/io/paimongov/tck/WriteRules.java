package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;
import static io.paimongov.tck.TckWrites.assumeBudgetFits;
import static io.paimongov.tck.TckWrites.judge;

import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/** WRITE-*: real Paimon writes through the provider commit exactly what they should, in budget. */
interface WriteRules extends TckWrites {

    /*
     * WRITE-1 and WRITE-2 do not shrink: each shrinking step writes a table again, and the seed in
     * the message reproduces the rows. The faults they find are pages whose content changes, which
     * Paimon reads without bounds checks: every further write of such an allocator risks reads
     * outside the heap (a crashed JVM reports nothing).
     */
    @Property(shrinking = ShrinkingMode.OFF)
    @Heavy
    @Verifies(Rule.WRITE_1)
    default void required_WRITE1_randomWorkloadsCommitTheReferenceModel(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        TckRun run = write(sized, TckRun.Plan.none());
        judge(Rule.WRITE_1, () -> {
            assumeBudgetFits(run);
            check(Rule.WRITE_1, run.outcome == TckRun.Outcome.COMMITTED, "the write did not commit: " + run.describe() + "; " + sized);
            Map<Long, Workload.Value> expected = sized.workload().model();
            check(Rule.WRITE_1, Workload.sameContent(run.content, expected),
                    "the table holds " + run.content.size() + " rows that differ from the model's " + expected.size() + "; " + sized);
        }, run);
    }

    @Property(shrinking = ShrinkingMode.OFF)
    @Heavy
    @Verifies(Rule.WRITE_2)
    default void required_WRITE2_aSmallBudgetCommitsWhatAnAmpleOneDoes(@ForAll("workloads") Workload workload) throws Exception {
        // Each write against the model, not the two with each other: one allocator that corrupts
        // both could make them agree. The small one is judged before the ample one is written.
        Map<Long, Workload.Value> expected = workload.model();
        TckRun small = write(new Sized(workload, SMALL, "16k"), TckRun.Plan.none());
        judge(Rule.WRITE_2, () -> {
            assumeBudgetFits(small);
            check(Rule.WRITE_2, small.outcome == TckRun.Outcome.COMMITTED, "the " + SMALL + " write did not commit: " + small.describe());
            check(Rule.WRITE_2, Workload.sameContent(small.content, expected),
                    "the " + SMALL + " write (" + small.metrics.spillBytes() + " bytes spilled) holds " + small.content.size()
                            + " rows that differ from the model's " + expected.size() + "; " + workload.describe());
        }, small);
        TckRun ample = write(new Sized(workload, "256m", "64k"), TckRun.Plan.none());
        judge(Rule.WRITE_2, () -> {
            check(Rule.WRITE_2, ample.outcome == TckRun.Outcome.COMMITTED, "the 256m write did not commit: " + ample.describe());
            check(Rule.WRITE_2, Workload.sameContent(ample.content, expected),
                    "the 256m write holds " + ample.content.size() + " rows that differ from the model's " + expected.size()
                            + " (the " + SMALL + " write holds the model's); " + workload.describe());
        }, ample);
    }

    @Property
    @Heavy
    @Verifies(Rule.WRITE_3)
    default void required_WRITE3_theBudgetHoldsThroughoutTheWrite(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        // Judged before a try is discarded for a budget too small for the table: an allocator that
        // overstates its capacity makes such writes fail too.
        TckRun run = write(sized, TckRun.Plan.none());
        judge(Rule.WRITE_3, () -> {
            check(Rule.WRITE_3, run.capacityBytes <= sized.budgetBytes(),
                    "the allocator says its capacity is " + run.capacityBytes + " bytes; the budget it was given is " + sized.budgetBytes() + "; " + sized);
            check(Rule.WRITE_3, run.capacityViolations == 0,
                    "the allocator's usedBytes() passed its capacity " + run.capacityViolations + " times; " + sized);
            check(Rule.WRITE_3, run.engineViolations == 0,
                    "the engine's counter passed the engine budget " + run.engineViolations + " times; " + sized);
            assumeBudgetFits(run);
        }, run);
    }
}
