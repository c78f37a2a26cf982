package io.paimongov.benchmarks.scale;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The top-level verdicts of a scale run, computed from its cells and spill series (docs/cli.md
 * lists the keys). Ratios are compared as reported, rounded to two decimals.
 *
 * @param allCellsSurvived every governed grid cell survived (false for an empty grid)
 * @param governedNeverWorse in every cell where plain Paimon survived, the governed write survived
 *     and its throughput ratio is at least {@value #NEVER_WORSE_RATIO}
 * @param maxHeapDriftAbs the largest |heap drift| of a governed cell that survived; null if none
 * @param maxPeakOverBudget the largest accounted peak / budget of a governed cell that survived;
 *     null if none
 * @param minSpillThroughputRatio the smallest spilling / in-memory throughput of the spill series
 *     (a spilling write that failed counts as 0; an entry whose in-memory write failed has none);
 *     null if none
 * @param maxSpillBytesRatio the largest spill bytes / input bytes of a governed write that survived,
 *     over the spill series' spilling writes and the grid; null if none
 *
 * <p>Immutable.
 */
public record ScaleSummary(
        boolean allCellsSurvived,
        boolean governedNeverWorse,
        Double maxHeapDriftAbs,
        Double maxPeakOverBudget,
        Double minSpillThroughputRatio,
        Double maxSpillBytesRatio) {

    /** The least governed / plain throughput where plain Paimon survives. */
    public static final double NEVER_WORSE_RATIO = 0.9;

    /** The verdicts of {@code cells} and {@code spills}. */
    public static ScaleSummary of(List<CellResult> cells, List<SpillResult> spills) {
        boolean all = !cells.isEmpty() && cells.stream().allMatch(c -> c.governed().survived());
        boolean neverWorse = cells.stream()
                .filter(c -> c.plain().survived())
                .allMatch(c -> c.governed().survived() && CellResult.round(c.throughputRatio()) >= NEVER_WORSE_RATIO);
        Double drift = max(cells.stream().map(CellResult::heapDrift).filter(Objects::nonNull).map(d -> Math.abs(CellResult.round(d))));
        Double peak = max(cells.stream().map(c -> CellResult.round(c.peakOverBudget())));
        Double minSpill = spills.stream().map(s -> CellResult.round(s.throughputRatio())).filter(Objects::nonNull)
                .min(Double::compare).orElse(null);
        Double spillBytes = max(Stream.concat(
                spills.stream().map(s -> CellResult.round(s.spillBytesRatio())),
                cells.stream().map(c -> CellResult.round(c.spillBytesRatio()))));
        return new ScaleSummary(all, neverWorse, drift, peak, minSpill, spillBytes);
    }

    private static Double max(Stream<Double> values) {
        return values.filter(Objects::nonNull).max(Double::compare).orElse(null);
    }

    /** The verdicts as report entries, in key order. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("allCellsSurvived", allCellsSurvived);
        m.put("governedNeverWorse", governedNeverWorse);
        m.put("maxHeapDriftAbs", maxHeapDriftAbs);
        m.put("maxPeakOverBudget", maxPeakOverBudget);
        m.put("minSpillThroughputRatio", minSpillThroughputRatio);
        m.put("maxSpillBytesRatio", maxSpillBytesRatio);
        return m;
    }
}
