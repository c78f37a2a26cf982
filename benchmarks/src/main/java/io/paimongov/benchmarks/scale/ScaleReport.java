package io.paimongov.benchmarks.scale;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scale run measured: the baselines, the grid cells, the spill series and their verdicts.
 * {@link #toMap} gives the report's keys in the order docs/cli.md lists them (the caller adds its
 * own, such as {@code quick}, before them).
 *
 * @param millis the whole run's wall time
 *
 * <p>Immutable.
 */
public record ScaleReport(
        List<ScaleRunner.Baseline> baselines, List<CellResult> cells, List<SpillResult> spills, ScaleSummary summary, long millis) {

    public ScaleReport {
        baselines = List.copyOf(baselines);
        cells = List.copyOf(cells);
        spills = List.copyOf(spills);
    }

    /** The report entries: verdicts, counts, the settings every cell shares, baselines, cells, spill series, time. */
    public Map<String, Object> toMap(ScaleRunner.Settings settings) {
        Map<String, Object> m = new LinkedHashMap<>(summary.toMap());
        m.put("cellCount", cells.size());
        m.put("governedSurvivedCells", (int) cells.stream().filter(c -> c.governed().survived()).count());
        m.put("plainSurvivedCells", (int) cells.stream().filter(c -> c.plain().survived()).count());
        m.put("plainDefaultsSurvivedCells", (int) cells.stream().filter(c -> c.plainDefaults().survived()).count());
        m.put("timeoutSeconds", settings.timeoutSeconds());
        m.put("sampleMillis", settings.sampleMillis());
        m.put("repeats", settings.repeats());
        m.put("minSeriesSeconds", settings.minSeriesSeconds());
        m.put("baselines", baselines.stream().map(ScaleRunner.Baseline::toMap).toList());
        m.put("cells", cells.stream().map(CellResult::toMap).toList());
        m.put("spill", spills.stream().map(SpillResult::toMap).toList());
        m.put("seconds", Math.round(millis / 100.0) / 10.0);
        return m;
    }
}
