package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One grid cell measured: the governed children, plain Paimon's with the governed write's settings
 * (the comparison) and plain Paimon's with its defaults (the second line), all with {@code -Xmx} =
 * {@code xmxBytes}. While the governed side and another survive, each side runs {@code --repeats}
 * rounds, the sides rotating ({@link RunSeries}): throughput ratios compare the median runs, and the
 * numbers judged against a bound (peaks, heap drift, spill bytes) are the worst run's. A side that
 * failed stays in the cell as a failure.
 *
 * @param cell what was written
 * @param baselineBytes the measured baseline ({@link ScaleRunner#baseline})
 * @param xmxBytes every child's {@code -Xmx}: the budget plus the baseline, rounded up to MiB
 * @param governed the governed children
 * @param plain plain Paimon's children with every option the governed write sets ({@link
 *     io.paimongov.benchmarks.PlainSettings#sameAsGoverned})
 * @param plainDefaults plain Paimon's children with its defaults and the budget as write buffer
 *
 * <p>Immutable. The derived values are null where the runs they need did not survive.
 */
public record CellResult(ScaleCell cell, long baselineBytes, long xmxBytes, RunSeries governed, RunSeries plain, RunSeries plainDefaults) {

    /**
     * Governed rows/s over plain rows/s with the same settings (= plain's median time / governed's
     * median time); null unless both survived.
     */
    public Double throughputRatio() {
        return ratio(plain);
    }

    /** Governed rows/s over plain rows/s with Paimon's defaults; null unless both survived. */
    public Double throughputRatioDefaults() {
        return ratio(plainDefaults);
    }

    private Double ratio(RunSeries other) {
        return governed.survived() && other.survived() ? (double) other.value("nanos") / Math.max(1, governed.value("nanos")) : null;
    }

    /**
     * The governed write's live heap peak above its child's baseline over the budget, its largest
     * over the runs: the bound measured from outside the accounting; null unless it survived.
     */
    public Double heapPeakOverBudget() {
        return heapPeakOverBudget(governed);
    }

    /** The same figure for {@code side} (plain Paimon's against the budget it was given as write buffer). */
    public Double heapPeakOverBudget(RunSeries side) {
        return side.worst(r -> (double) (r.value("liveHeapPeakBytes") - r.value("heapBaselineBytes")) / cell.budgetBytes());
    }

    /** The governed write's own accounted peak over its budget, its largest over the runs; null unless it survived. */
    public Double accountedPeakOverBudget() {
        return governed.worst(r -> (double) r.value("peakReservedBytes") / r.value("budgetBytes"));
    }

    /**
     * The governed write's live heap peak (above the child's own baseline) over its accounted peak,
     * minus 1: negative when it kept less than it accounted. The run farthest from 0 when it ran more
     * than once. Null unless it survived with a peak.
     */
    public Double heapDrift() {
        // A run that failed has no peak, so this is also null unless every run survived.
        if (governed.runs().stream().anyMatch(r -> r.value("peakReservedBytes") <= 0)) {
            return null;
        }
        return governed.worst(r -> (double) (r.value("liveHeapPeakBytes") - r.value("heapBaselineBytes")) / r.value("peakReservedBytes") - 1);
    }

    /**
     * The bytes the governed write's JVM wrote to its spill files (outside the table's warehouse)
     * over the input bytes computed from the rows, its largest over the runs: the spill bound,
     * measured from outside the runtime; null unless it survived.
     */
    public Double writtenSpillBytesRatio() {
        return governed.worst(r -> (double) r.value("spillWrittenBytes") / Math.max(1, cell.inputBytes()));
    }

    /** The governed write's own count of its spill bytes over its input bytes, its largest over the runs; null unless it survived. */
    public Double countedSpillBytesRatio() {
        return governed.worst(r -> (double) r.value("spillBytes") / Math.max(1, r.value("inputBytes")));
    }

    /** The cell's report entry, keys as docs/cli.md lists them. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", cell.table().label());
        m.put("format", cell.format());
        m.put("writers", cell.writers());
        m.put("partitions", cell.partitions());
        m.put("buckets", cell.table().bucketOption());
        m.put("rows", cell.rows());
        m.put("rowBytes", cell.rowBytes());
        m.put("inputBytes", cell.inputBytes());
        m.put("budgetBytes", cell.budgetBytes());
        m.put("baselineBytes", baselineBytes);
        m.put("xmxBytes", xmxBytes);
        Map<String, Object> g = governed.common();
        g.put("heapPeakOverBudget", round(heapPeakOverBudget()));
        g.put("accountedPeakOverBudget", round(accountedPeakOverBudget()));
        g.put("heapDrift", round(heapDrift()));
        g.put("writtenSpillBytesRatio", round(writtenSpillBytesRatio()));
        g.put("countedSpillBytesRatio", round(countedSpillBytesRatio()));
        for (String key : new String[] {"inputBytes", "peakReservedBytes", "spillBytes", "filesRolledEarly", "writersClosedEarly",
            "sortedRows", "outputFiles", "peakWritersOpen"}) {
            g.put(key, governed.survived() ? governed.value(key) : null);
        }
        m.put("governed", g);
        m.put("plain", plainMap(plain));
        m.put("plainDefaults", plainMap(plainDefaults));
        m.put("throughputRatio", round(throughputRatio()));
        m.put("throughputRatioDefaults", round(throughputRatioDefaults()));
        return m;
    }

    private Map<String, Object> plainMap(RunSeries side) {
        Map<String, Object> p = side.common();
        p.put("heapPeakOverBudget", round(heapPeakOverBudget(side)));
        p.put("outputFiles", side.survived() ? side.value("outputFiles") : null);
        return p;
    }

    static Double round(Double value) {
        return value == null ? null : BenchTables.round2(value);
    }
}
