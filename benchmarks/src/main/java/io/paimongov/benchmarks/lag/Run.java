package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import java.util.List;
import java.util.Locale;

/**
 * One setting's climb in one repetition, analysed: which stairs it sustained, and what its child's
 * heap and write showed. The numbers plain Paimon has no source for (the governed write's metrics)
 * are null for the plain lines; a failed run has its reason and nulls for what it did not report.
 *
 * <p>Immutable.
 *
 * @param line the setting: "1", "2", "-1", "plain" or "plain-defaults"
 * @param repetition from 0
 * @param failure why the run failed, one line; null when it ran
 * @param series the lag and level-0 files over the run
 * @param verdicts each stair judged, up to the first that was not steady
 * @param rates the staircase's rates, every stair's, run or not
 * @param stairStarts when each stair run started, ms from the run's start
 * @param baselineBytes the child's live heap before the write opened
 * @param liveHeapPeakBytes the largest live heap after a full collection while it wrote, minus the baseline
 * @param heapSamples full collections read
 * @param gcShare the child's collection time over its run
 * @param peakReservedBytes the governed write's own accounted peak
 * @param compactions the governed write's compactions
 * @param compactionBusyRatio the governed write's {@code compactionBusyRatio}
 * @param spills the governed write's spills
 * @param prepareMillisP99 the 99th percentile of the prepareCommit times
 * @param probeMismatches cross-checks where the rows' newest ts differed from the statistics'
 * @param crossChecks cross-checks made
 */
public record Run(String line, int repetition, String failure, LagSeries series, List<Steadiness.Verdict> verdicts, List<Double> rates,
        List<Long> stairStarts, Long baselineBytes, Long liveHeapPeakBytes, Integer heapSamples, Double gcShare, Long peakReservedBytes, Long compactions,
        Double compactionBusyRatio, Long spills, Long prepareMillisP99, int probeMismatches, int crossChecks) {

    public Run {
        verdicts = List.copyOf(verdicts);
        rates = List.copyOf(rates);
        stairStarts = List.copyOf(stairStarts);
    }

    static Run of(LagRun.Result r, int repetition) {
        List<Double> rates = r.settings().staircase().rates();
        if (r.failure() != null) {
            return new Run(r.settings().line(), repetition, r.failure(), r.series(), r.verdicts(), rates, r.stairStarts(), null, null, null, null, null, null,
                    null, null, null, r.probeMismatches(), r.crossChecks());
        }
        boolean governed = LagChild.governed(r.settings().line());
        List<Long> prepares = r.prepareMillis().isEmpty() ? List.of(0L) : r.prepareMillis();
        long baseline = r.value("baselineBytes");
        return new Run(r.settings().line(), repetition, null, r.series(), r.verdicts(), rates, r.stairStarts(), baseline,
                Math.max(0, r.value("peakBytes") - baseline), (int) r.value("heapSamples"),
                r.value("gcMillis") / (double) Math.max(1, r.value("ranMillis")), governed ? r.value("peakReservedBytes") : null,
                governed ? r.value("compactionCount") : null, governed ? r.number("compactionBusyRatio") : null,
                governed ? r.value("spillCount") : null, BenchTables.percentile(prepares, 99), r.probeMismatches(), r.crossChecks());
    }

    /** Stairs sustained before the first that was not steady (all of them when none failed). */
    public int steadyStairs() {
        int n = 0;
        while (n < verdicts.size() && verdicts.get(n).steady()) {
            n++;
        }
        return n;
    }

    /** The highest rate sustained: the last steady stair's; 0 when the first stair was not steady. */
    public double maxSteadyRowsPerSec() {
        int n = steadyStairs();
        return n == 0 ? 0 : rates.get(n - 1);
    }

    /** Whether every stair of the staircase was sustained: the highest rate is then only a lower bound. */
    public boolean ceilingReached() {
        return failure == null && steadyStairs() == rates.size();
    }

    /**
     * The mean lag over the judged part of stair {@code i}, when it was sustained and its lag was
     * flat ({@link Steadiness.Verdict#flat}); null otherwise: a lag still falling is no steady lag.
     */
    public Double lagAtStair(int i) {
        return i >= 0 && i < steadyStairs() && verdicts.get(i).flat() ? verdicts.get(i).meanLagMillis() : null;
    }

    /** One progress line. */
    String describe(long budgetBytes) {
        if (failure != null) {
            return "FAILED: " + failure;
        }
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "sustained %,.0f rows/s (%d of %d stairs%s)", maxSteadyRowsPerSec(),
                steadyStairs(), rates.size(), ceilingReached() ? ", all" : ""));
        if (steadyStairs() < verdicts.size()) {
            Steadiness.Verdict v = verdicts.get(steadyStairs());
            sb.append(String.format(Locale.ROOT, ", not at %,.0f (lag rising %.2f ms/ms)", rates.get(steadyStairs()), v.slope()));
        }
        sb.append(String.format(Locale.ROOT, "; live heap peak %.2f of the budget (%d samples)", liveHeapPeakBytes / (double) budgetBytes,
                heapSamples));
        if (peakReservedBytes != null) {
            sb.append(String.format(Locale.ROOT, ", accounted %.2f", peakReservedBytes / (double) budgetBytes));
        }
        return sb.toString();
    }
}
