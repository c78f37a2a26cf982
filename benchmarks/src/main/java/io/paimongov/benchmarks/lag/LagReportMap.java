package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link LagReport}'s JSON keys, as docs/cli.md lists them: ratios rounded to two decimals, rates in
 * whole rows per second, times in milliseconds, per-setting objects keyed by the setting ("1", "2",
 * "-1", "plain", "plain-defaults"), a figure of a failed run null.
 *
 * <p>Stateless.
 */
final class LagReportMap {

    private LagReportMap() {}

    static Map<String, Object> of(LagReport r) {
        ReadLag.Sizes sizes = r.sizes();
        boolean plain = sizes.lines().contains(LagChild.PLAIN);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("maxSteadyRowsPerSec", r.perLine(line -> whole(LagReport.median(maxSteadyRuns(r, line)))));
        m.put("maxSteadyRuns", r.perLine(line -> LagReport.whole(maxSteadyRuns(r, line))));
        m.put("ceilingReached", r.perLine(line -> r.runsOf(line).stream().anyMatch(Run::ceilingReached)));
        m.put("maxSteadyRatio2", LagReport.round2(LagReport.median(r.ratios("2", "1", LagReport::maxSteady))));
        m.put("maxSteadyRatioAll", LagReport.round2(LagReport.median(r.ratios("-1", "1", LagReport::maxSteady))));
        m.put("maxSteadyOverPlain", plain ? governedOver(r, LagChild.PLAIN, true) : null);
        Double common = r.commonRowsPerSec();
        m.put("commonRowsPerSec", whole(common));
        m.put("commonLagMillis", r.perLine(line -> whole(LagReport.median(r.runsOf(line).stream()
                .map(run -> run.failure() == null ? r.commonLag(run) : null).toList()))));
        m.put("commonLagRatio2", LagReport.round2(LagReport.median(r.ratios("2", "1", r::commonLag))));
        m.put("commonLagRatioAll", LagReport.round2(LagReport.median(r.ratios("-1", "1", r::commonLag))));
        m.put("commonLagRatio2Runs", rounded(r.ratios("2", "1", r::commonLag)));
        m.put("commonLagRatioAllRuns", rounded(r.ratios("-1", "1", r::commonLag)));
        m.put("commonLagOverPlain", plain ? governedOver(r, LagChild.PLAIN, false) : null);
        m.put("peakOverBudget", BenchTables.round2(r.peakOverBudget()));
        m.put("accountedPeakOverBudget", BenchTables.round2(r.accountedPeakOverBudget()));
        m.put("liveHeap", r.perLine(line -> liveHeap(r.runsOf(line))));
        m.put("budgetBytes", sizes.budgetBytes());
        m.put("anchor", anchor(r.anchor()));
        m.put("stairs", stairs(r));
        m.put("stairsRun", r.perLine(line -> r.runsOf(line).stream().map(LagReportMap::stairsRun).toList()));
        m.put("orders", r.orders());
        m.put("keys", sizes.keys());
        m.put("ageRows", LagTable.ageRows(sizes.keys()));
        m.put("buckets", LagTable.BUCKETS);
        m.put("repetitions", sizes.repetitions());
        m.put("checkpointMillis", sizes.checkpointMillis());
        m.put("probeMillis", sizes.probeMillis());
        m.put("heapSampleMillis", sizes.heapSampleMillis());
        m.put("childHeapBytes", ChildProcess.heapBytes(sizes.budgetBytes()));
        m.put("checkpointMillisP99", r.perLine(line -> max(r.runsOf(line).stream().map(Run::prepareMillisP99).toList())));
        m.put("compactions", r.perLine(line -> medianLong(r.runsOf(line).stream().map(Run::compactions).toList())));
        m.put("compactionBusyRatio", r.perLine(line -> LagReport.round2(r.runsOf(line).stream().map(Run::compactionBusyRatio)
                .filter(Objects::nonNull).min(Double::compare).orElse(null))));
        m.put("gcShare", r.perLine(line -> LagReport.round2(r.runsOf(line).stream().map(Run::gcShare).filter(Objects::nonNull)
                .max(Double::compare).orElse(null))));
        m.put("spills", r.perLine(line -> medianLong(r.runsOf(line).stream().map(Run::spills).toList())));
        m.put("lagMillisBySecond", r.perLine(line -> r.runsOf(line).stream().map(run -> perSecond(run.series(), run.series().endMillis()))
                .toList()));
        m.put("probeGapMaxMillis", r.perLine(line -> r.runsOf(line).stream().mapToLong(run -> run.series().longestGapMillis()).max()
                .orElse(0)));
        m.put("probeMismatches", r.runs().stream().mapToInt(Run::probeMismatches).sum());
        m.put("probeCrossChecks", r.runs().stream().mapToInt(Run::crossChecks).sum());
        m.put("failures", r.runs().stream().filter(run -> run.failure() != null).map(run -> {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("setting", run.line());
            f.put("repetition", run.repetition());
            f.put("reason", run.failure());
            return f;
        }).toList());
        m.put("loadAverage", BenchTables.round2(r.loadAverage()));
        m.put("loadAverageEnd", BenchTables.round2(r.loadAverageEnd()));
        return m;
    }

    /** The highest rate sustained per repetition; null for a failed run. */
    static List<Double> maxSteadyRuns(LagReport r, String line) {
        return r.runsOf(line).stream().map(run -> run.failure() == null ? run.maxSteadyRowsPerSec() : null).toList();
    }

    /** Per governed setting, the median over the repetitions of its figure over {@code plain}'s. */
    private static Map<String, Object> governedOver(LagReport r, String plain, boolean maxSteady) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String line : r.sizes().lines()) {
            if (LagChild.governed(line)) {
                m.put(line, LagReport.round2(LagReport.median(maxSteady ? r.ratios(line, plain, LagReport::maxSteady)
                        : r.ratios(line, plain, r::commonLag))));
            }
        }
        return m;
    }

    private static Map<String, Object> liveHeap(List<Run> runs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baselineBytes", max(runs.stream().map(Run::baselineBytes).toList()));
        m.put("peakBytes", max(runs.stream().map(Run::liveHeapPeakBytes).toList()));
        m.put("samples", runs.stream().map(Run::heapSamples).filter(Objects::nonNull).min(Integer::compare).orElse(null));
        return m;
    }

    private static Map<String, Object> anchor(Anchor a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rowsPerSec", Math.round(a.rowsPerSec()));
        m.put("source", a.source());
        m.put("drainedRowsPerSec", Math.round(a.drainedRowsPerSec()));
        m.put("visibleRowsPerSec", Math.round(a.visibleRowsPerSec()));
        m.put("visibleSeconds", BenchTables.round2(a.visibleSeconds()));
        m.put("writtenRowsPerSec", Math.round(a.writtenRowsPerSec()));
        m.put("seconds", a.seconds());
        return m;
    }

    private static Map<String, Object> stairs(LagReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rowsPerSec", LagReport.whole(r.stairs().rates()));
        m.put("factor", Staircase.FACTOR);
        m.put("startShare", Staircase.START_SHARE);
        m.put("slopeBound", Steadiness.SLOPE_BOUND);
        m.put("warmUpSeconds", r.stairs().warmUpMillis() / 1e3);
        m.put("stairSeconds", r.stairs().stairMillis() / 1e3);
        m.put("judgedSeconds", r.stairs().halfMillis() / 1e3);
        m.put("firstStairMaxSeconds", r.stairs().firstStairMaxMillis() / 1e3);
        return m;
    }

    private static List<Map<String, Object>> stairsRun(Run run) {
        List<Map<String, Object>> stairs = new ArrayList<>();
        for (int i = 0; i < run.verdicts().size(); i++) {
            Steadiness.Verdict v = run.verdicts().get(i);
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("rowsPerSec", Math.round(run.rates().get(i)));
            s.put("startSeconds", i < run.stairStarts().size() ? run.stairStarts().get(i) / 1e3 : null);
            s.put("steady", v.steady());
            s.put("slope", Double.isNaN(v.slope()) ? null : Math.round(v.slope() * 1000) / 1000.0);
            s.put("lagMillis", Double.isNaN(v.meanLagMillis()) ? null : Math.round(v.meanLagMillis()));
            s.put("level0Files", Double.isNaN(v.level0Mean()) ? null : BenchTables.round2(v.level0Mean()));
            stairs.add(s);
        }
        return stairs;
    }

    /** The time-weighted mean lag of each whole second of a run (ms); a second no sample covers is -1. */
    static List<Long> perSecond(LagSeries series, long runMillis) {
        List<Long> means = new ArrayList<>();
        for (long t = 0; t + 1000 <= runMillis && t < series.endMillis(); t += 1000) {
            double mean = series.meanLag(t, t + 1000);
            means.add(Double.isNaN(mean) ? -1 : Math.round(mean));
        }
        return means;
    }

    private static Long whole(Double value) {
        return value == null ? null : Math.round(value);
    }

    private static List<Double> rounded(List<Double> values) {
        return values.stream().map(LagReport::round2).toList();
    }

    private static <T extends Comparable<T>> T max(List<T> values) {
        return values.stream().filter(Objects::nonNull).max(Comparable::compareTo).orElse(null);
    }

    private static Long medianLong(List<Long> values) {
        List<Long> present = values.stream().filter(Objects::nonNull).toList();
        return present.isEmpty() ? null : BenchTables.median(present);
    }
}
