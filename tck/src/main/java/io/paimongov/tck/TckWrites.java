package io.paimongov.tck;

import io.paimongov.spi.ResourceExhaustedException;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Provide;

/**
 * What the rules that write real tables share: the random workloads and their budgets, one governed
 * write of a workload in a fresh subject, the spilling workload and a cancelled write of it. No
 * rule of its own.
 */
interface TckWrites extends TckContext {

    /**
     * From the smallest budget every table of {@link #workloads()} fits in (a primary-key Parquet
     * table needs about 5m: the measured open file writer, one compaction task and the spill
     * channels; see docs/performance.md, "Measured footprints") to an ample one.
     */
    java.util.List<String> BUDGETS = java.util.List.of("6m", "8m", "16m", "64m");
    /** The small budget of WRITE-2. */
    String SMALL = "6m";

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
    default Arbitrary<Workload> workloads() {
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
    default Arbitrary<Sized> sizedWorkloads() {
        return Combinators.combine(workloads(), Arbitraries.of(BUDGETS), Arbitraries.of("16k", "32k", "64k"))
                .as(Sized::new);
    }

    /** Runs {@code sized} in a fresh subject; a budget too small for the table discards the try. */
    default TckRun write(Sized sized, TckRun.Plan plan, String... options) throws Exception {
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

    /**
     * {@code rule}'s verdict on {@code runs}: {@code checks} first, then what the writes' closes
     * threw. A failed check is the verdict, with the close's failure suppressed in it; when every
     * check holds (or the checks discard the try), the first close that threw fails the rule, the
     * later ones suppressed in it ({@link Cleanup#judgeThen}).
     */
    static void judge(Rule rule, Runnable checks, TckRun... runs) {
        AssertionError closes = null;
        for (TckRun run : runs) {
            AssertionError failure = run.closeFailure(rule);
            if (closes == null) {
                closes = failure;
            } else if (failure != null) {
                closes.addSuppressed(failure);
            }
        }
        Cleanup.judgeThen(closes, checks);
    }

    static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** A workload that spills under 4m (Avro: its file writer is the smallest measured; 4m holds its 8 writers' first pages at the 64k pages some engines force). */
    default Sized spilling(long seed) {
        int rows = Math.max(60_000, settings().rows());
        return new Sized(new Workload(seed, rows, rows, 2, 4, "deduplicate", "avro", 64), "4m", "16k");
    }

    /** A cancel at a random point: a row, or some milliseconds into prepareCommit. */
    default TckRun cancelled(int percent, boolean inPrepare, long seed) throws Exception {
        Sized sized = spilling(seed);
        TckRun.Plan plan =
                inPrepare
                        ? new TckRun.Plan(TckRun.Event.CANCEL_IN_PREPARE, percent % 20)
                        : new TckRun.Plan(TckRun.Event.CANCEL_AT_ROW, sized.workload().rows() * percent / 100);
        return write(sized, plan);
    }
}
