package io.paimongov.benchmarks.scale;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One entry of the spill series: the same governed write of {@code cell}'s rows once with a budget
 * twice the input (in memory) and once with a budget of 5% of the input (spilling), each in a child
 * of its own, both with the same {@code -Xmx} ({@link ScaleRunner#spillXmx}); each {@code
 * --repeats} times, the two alternating ({@link RunSeries}).
 *
 * @param cell the spilling write (its budget is the spilling budget)
 * @param inMemoryBudgetBytes the in-memory write's budget
 * @param baselineBytes the measured baseline of the cell's table and format
 * @param xmxBytes both children's {@code -Xmx}
 * @param inMemory the in-memory children
 * @param spilling the spilling children
 *
 * <p>Immutable.
 */
public record SpillResult(
        ScaleCell cell, long inMemoryBudgetBytes, long baselineBytes, long xmxBytes, RunSeries inMemory, RunSeries spilling) {

    /** Spilling budget as a share of the input bytes. */
    public static final double SPILL_SHARE = 0.05;

    /**
     * Spilling rows/s over in-memory rows/s, of the median runs; 0 when a spilling run did not
     * survive (it delivered nothing); null when an in-memory one did not (nothing to compare with).
     */
    public Double throughputRatio() {
        if (!inMemory.survived()) {
            return null;
        }
        return spilling.survived() ? (double) inMemory.value("nanos") / Math.max(1, spilling.value("nanos")) : 0.0;
    }

    /**
     * The bytes the spilling write's JVM wrote to its spill files over the input bytes computed from
     * the rows, its largest over the runs: the bound, measured from outside; null unless it survived.
     */
    public Double writtenSpillBytesRatio() {
        return spilling.worst(r -> (double) r.value("spillWrittenBytes") / Math.max(1, cell.inputBytes()));
    }

    /** The spilling write's own count of its spill bytes over its input bytes, its largest over the runs; null unless it survived. */
    public Double countedSpillBytesRatio() {
        return spilling.worst(r -> (double) r.value("spillBytes") / Math.max(1, r.value("inputBytes")));
    }

    /** The entry in the report, keys as docs/cli.md lists them. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", cell.table().label());
        m.put("format", cell.format());
        m.put("writers", cell.writers());
        m.put("rows", cell.rows());
        m.put("inputBytes", cell.inputBytes());
        m.put("inMemoryBudgetBytes", inMemoryBudgetBytes);
        m.put("spillBudgetBytes", cell.budgetBytes());
        m.put("baselineBytes", baselineBytes);
        m.put("xmxBytes", xmxBytes);
        m.put("inMemory", run(inMemory, inMemoryBudgetBytes));
        Map<String, Object> s = run(spilling, cell.budgetBytes());
        s.put("spillBytes", spilling.survived() ? spilling.value("spillBytes") : null);
        s.put("spillFiles", spilling.survived() ? spilling.value("spillFiles") : null);
        m.put("spilling", s);
        m.put("throughputRatio", CellResult.round(throughputRatio()));
        m.put("writtenSpillBytesRatio", CellResult.round(writtenSpillBytesRatio()));
        m.put("countedSpillBytesRatio", CellResult.round(countedSpillBytesRatio()));
        return m;
    }

    /** A side's keys; {@code heapPeakOverBudget} is its worst run's live heap peak above the baseline over {@code budgetBytes}. */
    private static Map<String, Object> run(RunSeries r, long budgetBytes) {
        Map<String, Object> m = r.common();
        m.put("peakReservedBytes", r.survived() ? r.value("peakReservedBytes") : null);
        m.put("heapPeakOverBudget", CellResult.round(
                r.worst(c -> (double) (c.value("liveHeapPeakBytes") - c.value("heapBaselineBytes")) / budgetBytes)));
        return m;
    }
}
