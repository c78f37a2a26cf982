package io.paimongov.benchmarks.scale;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The top-level verdicts of a scale run, computed from its cells and spill series (docs/cli.md
 * lists the keys). Ratios are compared as reported, rounded to two decimals. Every cell counts: a
 * cell where a side failed stays in the verdicts as that failure.
 *
 * @param allCellsSurvived every governed grid cell survived (false for an empty grid)
 * @param governedNeverWorse in every cell, the governed write survived and plain Paimon with the
 *     governed write's settings either failed or reached at most 1 / {@value #NEVER_WORSE_RATIO} of
 *     its throughput (governed / plain at least {@value #NEVER_WORSE_RATIO})
 * @param governedNeverWorseDefaults the same against plain Paimon with its defaults
 * @param maxHeapDriftAbs the largest |heap drift| of a governed cell that survived; null if none
 * @param maxHeapPeakOverBudget the largest live heap peak (above the child's baseline) / budget of a
 *     governed cell that survived: the bound, measured from outside the accounting; null if none
 * @param maxAccountedPeakOverBudget the largest accounted peak / budget of a governed cell that
 *     survived (the runtime's own figure, at most 1.0 by construction); null if none
 * @param minHeapSamples the fewest full collections read in any run of a governed cell that
 *     survived; null if none
 * @param minSpillThroughputRatio the smallest spilling / in-memory throughput of the spill series
 *     (a spilling write that failed counts as 0; an entry whose in-memory write failed has none);
 *     null if none
 * @param maxWrittenSpillBytesRatio the largest spill bytes written (as the JVM's file writes saw
 *     them) / input bytes of a governed write that survived, over the spill series' spilling writes
 *     and the grid: the spill bound, measured from outside; null if none
 * @param maxCountedSpillBytesRatio the same from the runtime's own count of its spill bytes
 *
 * <p>Immutable.
 */
public record ScaleSummary(
        boolean allCellsSurvived,
        boolean governedNeverWorse,
        boolean governedNeverWorseDefaults,
        Double maxHeapDriftAbs,
        Double maxHeapPeakOverBudget,
        Double maxAccountedPeakOverBudget,
        Integer minHeapSamples,
        Double minSpillThroughputRatio,
        Double maxWrittenSpillBytesRatio,
        Double maxCountedSpillBytesRatio) {

    /** The least governed / plain throughput where plain Paimon survives. */
    public static final double NEVER_WORSE_RATIO = 0.9;

    /** The verdicts of {@code cells} and {@code spills}. */
    public static ScaleSummary of(List<CellResult> cells, List<SpillResult> spills) {
        boolean all = !cells.isEmpty() && cells.stream().allMatch(c -> c.governed().survived());
        boolean neverWorse = cells.stream().allMatch(c -> notWorse(c, c.plain(), c.throughputRatio()));
        boolean neverWorseDefaults = cells.stream().allMatch(c -> notWorse(c, c.plainDefaults(), c.throughputRatioDefaults()));
        Double drift = max(cells.stream().map(CellResult::heapDrift).filter(Objects::nonNull).map(d -> Math.abs(CellResult.round(d))));
        Double heapPeak = max(cells.stream().map(c -> CellResult.round(c.heapPeakOverBudget())));
        Double accountedPeak = max(cells.stream().map(c -> CellResult.round(c.accountedPeakOverBudget())));
        Integer samples = cells.stream().filter(c -> c.governed().survived()).flatMap(c -> c.governed().runs().stream())
                .map(r -> (int) r.value("heapSamples")).min(Integer::compare).orElse(null);
        Double minSpill = spills.stream().map(s -> CellResult.round(s.throughputRatio())).filter(Objects::nonNull)
                .min(Double::compare).orElse(null);
        Double written = max(Stream.concat(
                spills.stream().map(s -> CellResult.round(s.writtenSpillBytesRatio())),
                cells.stream().map(c -> CellResult.round(c.writtenSpillBytesRatio()))));
        Double counted = max(Stream.concat(
                spills.stream().map(s -> CellResult.round(s.countedSpillBytesRatio())),
                cells.stream().map(c -> CellResult.round(c.countedSpillBytesRatio()))));
        return new ScaleSummary(all, neverWorse, neverWorseDefaults, drift, heapPeak, accountedPeak, samples, minSpill, written, counted);
    }

    /** A cell's governed write survived, and {@code plain} failed or {@code ratio} reached the bound. */
    private static boolean notWorse(CellResult c, RunSeries plain, Double ratio) {
        return c.governed().survived() && (!plain.survived() || CellResult.round(ratio) >= NEVER_WORSE_RATIO);
    }

    private static Double max(Stream<Double> values) {
        return values.filter(Objects::nonNull).max(Double::compare).orElse(null);
    }

    /** The verdicts as report entries, in key order. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("allCellsSurvived", allCellsSurvived);
        m.put("governedNeverWorse", governedNeverWorse);
        m.put("governedNeverWorseDefaults", governedNeverWorseDefaults);
        m.put("maxHeapDriftAbs", maxHeapDriftAbs);
        m.put("maxHeapPeakOverBudget", maxHeapPeakOverBudget);
        m.put("maxAccountedPeakOverBudget", maxAccountedPeakOverBudget);
        m.put("minHeapSamples", minHeapSamples);
        m.put("minSpillThroughputRatio", minSpillThroughputRatio);
        m.put("maxWrittenSpillBytesRatio", maxWrittenSpillBytesRatio);
        m.put("maxCountedSpillBytesRatio", maxCountedSpillBytesRatio);
        return m;
    }
}
