package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.lag.ReadLag.Run;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link ReadLag} measured, and the figures derived from it: the steady-lag ratios paired per
 * repetition (median, min, max), per-setting medians, and the worst memory peak. docs/cli.md lists
 * the keys of {@link #toMap}.
 *
 * <p>Immutable.
 *
 * @param loadAverage the one-minute load average before the calibration (-1 when unknown)
 * @param calibration what the calibration run measured (the first estimate)
 * @param check the last check step, whose drain rate the offered rate is based on
 * @param offeredRowsPerSec the rate every setting was offered
 * @param keys the key space of the measured runs
 * @param runs every measured run, in the order run
 */
public record LagReport(ReadLag.Sizes sizes, double loadAverage, ReadLag.Calibration calibration, ReadLag.Check check,
        double offeredRowsPerSec, int keys,
        List<Run> runs) {

    public LagReport {
        runs = List.copyOf(runs);
    }

    /** lag(2) / lag(1) of each repetition, in repetition order. */
    public List<Double> ratios(String threads) {
        List<Double> ratios = new ArrayList<>();
        for (int rep = 0; rep < sizes.repetitions(); rep++) {
            ratios.add(run(threads, rep).steady().meanMillis() / Math.max(1e-9, run("1", rep).steady().meanMillis()));
        }
        return ratios;
    }

    /** The median of {@link #ratios} (the mean of the middle two for an even count). */
    public double medianRatio(String threads) {
        List<Double> sorted = new ArrayList<>(ratios(threads));
        sorted.sort(Comparator.naturalOrder());
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The largest peak of accounted memory over the budget, over all runs. */
    public double peakOverBudget() {
        return runs.stream().mapToLong(Run::peakReservedBytes).max().orElse(0) / (double) sizes.budgetBytes();
    }

    /** The repetition whose lag(-1)/lag(1) is the median one: the one the chart shows. */
    public int medianRepetition() {
        List<Double> all = ratios("-1");
        List<Integer> reps = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            reps.add(i);
        }
        reps.sort(Comparator.comparing(all::get));
        return reps.get((reps.size() - 1) / 2);
    }

    public Run run(String threads, int repetition) {
        return runs.stream().filter(r -> r.threads().equals(threads) && r.repetition() == repetition).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no run of task-threads " + threads + " in repetition " + repetition));
    }

    /** The report as JSON-ready values (maps, lists, numbers, booleans); docs/cli.md lists the keys. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lagRatio2", BenchTables.round2(medianRatio("2")));
        m.put("lagRatioAll", BenchTables.round2(medianRatio("-1")));
        m.put("lagRatio2Runs", rounded(ratios("2")));
        m.put("lagRatioAllRuns", rounded(ratios("-1")));
        m.put("peakOverBudget", BenchTables.round2(peakOverBudget()));
        m.put("budgetBytes", sizes.budgetBytes());
        m.put("calibratedRowsPerSec", Math.round(check.drainRowsPerSec()));
        Map<String, Object> cal = new LinkedHashMap<>();
        cal.put("source", calibration.source());
        cal.put("drainedRowsPerSec", Math.round(calibration.drainedRowsPerSec()));
        cal.put("visibleRowsPerSec", Math.round(calibration.visibleRowsPerSec()));
        cal.put("visibleSeconds", BenchTables.round2(calibration.visibleSeconds()));
        cal.put("writtenRowsPerSec", Math.round(calibration.writtenRowsPerSec()));
        cal.put("seconds", calibration.seconds());
        cal.put("checkRowsPerSec", Math.round(check.offeredRowsPerSec()));
        cal.put("checkBusyRatio", BenchTables.round2(check.busyRatio()));
        cal.put("checkAchievedOverOffered", BenchTables.round2(check.achievedOverOffered()));
        cal.put("checkVisibleOverOffered", BenchTables.round2(check.visibleOverOffered()));
        cal.put("checkDrainedOverOffered", BenchTables.round2(check.drainedOverOffered()));
        cal.put("checkFellBehind", check.behind());
        cal.put("checkSaturated", check.saturated());
        cal.put("checkSteps", check.step());
        m.put("calibration", cal);
        m.put("offeredRowsPerSec", Math.round(offeredRowsPerSec));
        m.put("overload", sizes.overload());
        m.put("keys", keys);
        m.put("buckets", LagTable.BUCKETS);
        m.put("repetitions", sizes.repetitions());
        m.put("runSeconds", sizes.runMillis() / 1000.0);
        m.put("checkpointMillis", sizes.checkpointMillis());
        m.put("probeMillis", sizes.probeMillis());
        Map<String, Object> lag = new LinkedHashMap<>();
        Map<String, Object> level0 = new LinkedHashMap<>();
        Map<String, Object> achieved = new LinkedHashMap<>();
        Map<String, Object> checkpoints = new LinkedHashMap<>();
        Map<String, Object> compactions = new LinkedHashMap<>();
        Map<String, Object> busy = new LinkedHashMap<>();
        Map<String, Object> gc = new LinkedHashMap<>();
        Map<String, Object> spills = new LinkedHashMap<>();
        Map<String, Object> bySecond = new LinkedHashMap<>();
        Map<String, Object> probeGaps = new LinkedHashMap<>();
        int mismatches = 0;
        int crossChecks = 0;
        for (Map.Entry<String, List<Run>> e : ReadLag.bySetting(runs).entrySet()) {
            List<Run> rs = e.getValue();
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("mean", median(rs.stream().map(r -> Math.round(r.steady().meanMillis())).toList()));
            l.put("p50", median(rs.stream().map(r -> r.steady().p50Millis()).toList()));
            l.put("p95", median(rs.stream().map(r -> r.steady().p95Millis()).toList()));
            l.put("steady", rs.stream().allMatch(r -> r.steady().steady()));
            lag.put(e.getKey(), l);
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("mean", BenchTables.round2(rs.stream().mapToDouble(r -> r.steady().level0Mean()).average().orElse(0)));
            f.put("max", rs.stream().mapToInt(r -> r.steady().level0Max()).max().orElse(0));
            level0.put(e.getKey(), f);
            achieved.put(e.getKey(), BenchTables.round2(rs.stream().mapToDouble(Run::achievedOverOffered).min().orElse(0)));
            checkpoints.put(e.getKey(), rs.stream().mapToLong(Run::checkpointMillisP99).max().orElse(0));
            compactions.put(e.getKey(), median(rs.stream().map(Run::compactions).toList()));
            busy.put(e.getKey(), BenchTables.round2(rs.stream().mapToDouble(Run::compactionBusyRatio).min().orElse(0)));
            gc.put(e.getKey(), BenchTables.round2(rs.stream().mapToDouble(Run::gcShare).max().orElse(0)));
            spills.put(e.getKey(), median(rs.stream().map(Run::spills).toList()));
            bySecond.put(e.getKey(), rs.stream().map(r -> perSecond(r.series(), sizes.runMillis())).toList());
            probeGaps.put(e.getKey(), rs.stream().mapToLong(r -> r.series().longestGapMillis()).max().orElse(0));
            for (Run r : rs) {
                mismatches += r.probeMismatches();
                crossChecks += r.crossChecks();
            }
        }
        m.put("lagMillis", lag);
        m.put("level0Files", level0);
        m.put("achievedOverOffered", achieved);
        m.put("checkpointMillisP99", checkpoints);
        m.put("compactions", compactions);
        m.put("compactionBusyRatio", busy);
        m.put("gcShare", gc);
        m.put("spills", spills);
        m.put("lagMillisBySecond", bySecond);
        m.put("probeGapMaxMillis", probeGaps);
        m.put("probeMismatches", mismatches);
        m.put("probeCrossChecks", crossChecks);
        m.put("loadAverage", BenchTables.round2(loadAverage));
        return m;
    }

    /** The time-weighted mean lag of each whole second of a run (ms); a second no sample covers is -1. */
    static List<Long> perSecond(LagSeries series, long runMillis) {
        List<Long> means = new ArrayList<>();
        for (long t = 0; t + 1000 <= runMillis; t += 1000) {
            double mean = series.meanLag(t, t + 1000);
            means.add(Double.isNaN(mean) ? -1 : Math.round(mean));
        }
        return means;
    }

    private static List<Double> rounded(List<Double> values) {
        return values.stream().map(BenchTables::round2).toList();
    }

    private static long median(List<Long> values) {
        return BenchTables.median(values);
    }
}
