package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;
import static io.paimongov.tck.TckWrites.assumeBudgetFits;

import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** WRITE-*: real Paimon writes through the provider commit exactly what they should, in budget. */
interface WriteRules extends TckWrites {

    @Property
    @Heavy
    @Verifies(Rule.WRITE_1)
    default void required_WRITE1_randomWorkloadsCommitTheReferenceModel(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        TckRun run = plainWrite(sized);
        check(Rule.WRITE_1, run.outcome == TckRun.Outcome.COMMITTED, "the write did not commit: " + run.describe() + "; " + sized);
        Map<Long, Workload.Value> expected = sized.workload().model();
        check(Rule.WRITE_1, Workload.sameContent(run.content, expected),
                "the table holds " + run.content.size() + " rows that differ from the model's " + expected.size() + "; " + sized);
    }

    @Property
    @Heavy
    @Verifies(Rule.WRITE_2)
    default void required_WRITE2_aSmallBudgetCommitsWhatAnAmpleOneDoes(@ForAll("workloads") Workload workload) throws Exception {
        TckRun small = write(new Sized(workload, SMALL, "16k"), TckRun.Plan.none());
        assumeBudgetFits(small);
        TckRun ample = write(new Sized(workload, "256m", "64k"), TckRun.Plan.none());
        check(Rule.WRITE_2, small.outcome == TckRun.Outcome.COMMITTED, "the " + SMALL + " write did not commit: " + small.describe());
        check(Rule.WRITE_2, ample.outcome == TckRun.Outcome.COMMITTED, "the 256m write did not commit: " + ample.describe());
        check(Rule.WRITE_2, Workload.sameContent(small.content, ample.content),
                "a " + SMALL + " write (" + small.metrics.spillBytes() + " bytes spilled) and a 256m write of the same rows differ; " + workload.describe());
    }

    @Property
    @Heavy
    @Verifies(Rule.WRITE_3)
    default void required_WRITE3_theBudgetHoldsThroughoutTheWrite(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        TckRun run = plainWrite(sized);
        check(Rule.WRITE_3, run.metrics.peakReservedBytes() <= run.metrics.budgetBytes(),
                "the accounted peak " + run.metrics.peakReservedBytes() + " passed the budget " + run.metrics.budgetBytes());
        check(Rule.WRITE_3, run.capacityViolations == 0,
                "the allocator's usedBytes() passed its capacity " + run.capacityViolations + " times");
        check(Rule.WRITE_3, run.engineViolations == 0,
                "the engine's counter passed the engine budget " + run.engineViolations + " times; " + sized);
    }
}
