package io.paimongov.tck;

import io.paimongov.spi.ResourceExhaustedException;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/** WRITE-*: real Paimon writes through the provider commit exactly what they should, in budget. */
abstract class WriteRules extends LifecycleRules {

    /**
     * From the smallest budget every table of {@link #workloads()} fits in (a primary-key Parquet
     * table needs about 5m: the measured open file writer, one compaction task and the spill
     * channels; see docs/performance.md, "Measured footprints") to an ample one.
     */
    private static final String[] BUDGETS = {"6m", "8m", "16m", "64m"};
    /** The small budget of WRITE-2. */
    static final String SMALL = "6m";

    /** A workload and the budget and page size it runs under. */
    record Sized(Workload workload, String budget, String pageSize) {
        long budgetBytes() {
            return io.paimongov.runtime.config.Sizes.parse("budget", budget);
        }

        @Override
        public String toString() {
            return workload.describe() + ", budget " + budget + ", pages " + pageSize;
        }
    }

    @Provide
    Arbitrary<Workload> workloads() {
        int maxRows = settings().rows();
        Arbitrary<Integer> rows = Arbitraries.integers().between(Math.min(500, maxRows), maxRows);
        Arbitrary<Integer> keyShare = Arbitraries.integers().between(2, 100);
        Arbitrary<Integer> partitions = Arbitraries.integers().between(1, 3);
        Arbitrary<Integer> buckets = Arbitraries.integers().between(1, 8);
        Arbitrary<String> merge = Arbitraries.of("deduplicate", "partial-update", "aggregation");
        Arbitrary<String> format = Arbitraries.of("parquet", "orc", "avro");
        Arbitrary<Integer> valueBytes = Arbitraries.integers().between(8, 200);
        Arbitrary<Long> seed = Arbitraries.longs();
        return Combinators.combine(rows, keyShare, partitions, buckets, merge, format, valueBytes, seed)
                .as((r, share, p, b, m, f, v, s) -> new Workload(s, r, Math.max(1, r * share / 100), p, b, m, f, v))
                .flatMap(w -> Arbitraries.of(TableModes.forWriteRules()).map(w::in));
    }

    @Provide
    Arbitrary<Sized> sizedWorkloads() {
        return Combinators.combine(workloads(), Arbitraries.of(BUDGETS), Arbitraries.of("16k", "32k", "64k"))
                .as(Sized::new);
    }

    /** Runs {@code sized} in a fresh subject; a budget too small for the table discards the try. */
    final TckRun write(Sized sized, TckRun.Plan plan, String... options) throws Exception {
        try (TckSubject s = subject(sized.budgetBytes())) {
            String[] all = concat(options, "governance.memory.page-size", sized.pageSize());
            TckRun run = TckRun.run(s, sized.workload(), "t", s.options(all), plan);
            run.problems = run.leftovers(s, run.outcome == TckRun.Outcome.COMMITTED);
            run.content = run.outcome == TckRun.Outcome.COMMITTED ? Workload.read(run.table) : Map.of();
            run.engineViolations = s.provider.engineViolations();
            run.capacityViolations = s.provider.capacityViolations();
            run.capacityBytes = s.provider.largestCapacity();
            run.scopeUnderRoots = run.scope != null && TckRun.spillRoots(s).contains(run.scope.getParent());
            return run;
        }
    }

    /** Memory refused under these budgets means the table needs more: the try says nothing. */
    static void assumeBudgetFits(TckRun run) {
        Assume.that(!(run.outcome == TckRun.Outcome.FAILED
                && run.error instanceof ResourceExhaustedException e
                && e.resource() == ResourceExhaustedException.Resource.MEMORY));
    }

    /** A write of {@code sized} without events, the try skipped when its budget cannot hold the table. */
    final TckRun plainWrite(Sized sized) throws Exception {
        TckRun run = write(sized, TckRun.Plan.none());
        assumeBudgetFits(run);
        return run;
    }

    static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /*
     * WRITE-1 and WRITE-2 do not shrink: each shrinking step writes a table again, and the seed in
     * the message reproduces the rows. The faults they find are pages whose content changes, which
     * Paimon reads without bounds checks: every further write of such an allocator risks reads
     * outside the heap (a crashed JVM reports nothing).
     */
    @Property(shrinking = ShrinkingMode.OFF)
    @Heavy
    @Verifies(Rule.WRITE_1)
    void required_WRITE1_randomWorkloadsCommitTheReferenceModel(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        TckRun run = plainWrite(sized);
        check(Rule.WRITE_1, run.outcome == TckRun.Outcome.COMMITTED, "the write did not commit: " + run.describe() + "; " + sized);
        Map<Long, Workload.Value> expected = sized.workload().model();
        check(Rule.WRITE_1, Workload.sameContent(run.content, expected),
                "the table holds " + run.content.size() + " rows that differ from the model's " + expected.size() + "; " + sized);
    }

    @Property(shrinking = ShrinkingMode.OFF)
    @Heavy
    @Verifies(Rule.WRITE_2)
    void required_WRITE2_aSmallBudgetCommitsWhatAnAmpleOneDoes(@ForAll("workloads") Workload workload) throws Exception {
        // Each write against the model, not the two with each other: one allocator that corrupts
        // both could make them agree. The small one is judged before the ample one is written.
        Map<Long, Workload.Value> expected = workload.model();
        TckRun small = write(new Sized(workload, SMALL, "16k"), TckRun.Plan.none());
        assumeBudgetFits(small);
        check(Rule.WRITE_2, small.outcome == TckRun.Outcome.COMMITTED, "the " + SMALL + " write did not commit: " + small.describe());
        check(Rule.WRITE_2, Workload.sameContent(small.content, expected),
                "the " + SMALL + " write (" + small.metrics.spillBytes() + " bytes spilled) holds " + small.content.size()
                        + " rows that differ from the model's " + expected.size() + "; " + workload.describe());
        TckRun ample = write(new Sized(workload, "256m", "64k"), TckRun.Plan.none());
        check(Rule.WRITE_2, ample.outcome == TckRun.Outcome.COMMITTED, "the 256m write did not commit: " + ample.describe());
        check(Rule.WRITE_2, Workload.sameContent(ample.content, expected),
                "the 256m write holds " + ample.content.size() + " rows that differ from the model's " + expected.size()
                        + " (the " + SMALL + " write holds the model's); " + workload.describe());
    }

    @Property
    @Heavy
    @Verifies(Rule.WRITE_3)
    void required_WRITE3_theBudgetHoldsThroughoutTheWrite(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        // Judged before a try is discarded for a budget too small for the table: an allocator that
        // overstates its capacity makes such writes fail too.
        TckRun run = write(sized, TckRun.Plan.none());
        check(Rule.WRITE_3, run.capacityBytes <= sized.budgetBytes(),
                "the allocator says its capacity is " + run.capacityBytes + " bytes; the budget it was given is " + sized.budgetBytes() + "; " + sized);
        check(Rule.WRITE_3, run.capacityViolations == 0,
                "the allocator's usedBytes() passed its capacity " + run.capacityViolations + " times; " + sized);
        check(Rule.WRITE_3, run.engineViolations == 0,
                "the engine's counter passed the engine budget " + run.engineViolations + " times; " + sized);
        assumeBudgetFits(run);
    }
}
