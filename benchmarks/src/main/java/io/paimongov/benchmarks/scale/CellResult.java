package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One grid cell measured: the governed and the plain child, both with {@code -Xmx} = {@code
 * xmxBytes}.
 *
 * @param cell what was written
 * @param baselineBytes the measured baseline ({@link ScaleRunner#baseline})
 * @param xmxBytes both children's {@code -Xmx}: the budget plus the baseline, rounded up to MiB
 * @param governed the governed child
 * @param plain the plain Paimon child
 *
 * <p>Immutable. The derived values are null where the runs they need did not survive.
 */
public record CellResult(ScaleCell cell, long baselineBytes, long xmxBytes, ChildRun governed, ChildRun plain) {

    /** Governed rows/s over plain rows/s (= plain time / governed time); null unless both survived. */
    public Double throughputRatio() {
        return governed.survived() && plain.survived()
                ? (double) plain.value("nanos") / Math.max(1, governed.value("nanos"))
                : null;
    }

    /** The governed write's accounted peak over its budget; null unless it survived. */
    public Double peakOverBudget() {
        return governed.survived() ? (double) governed.value("peakReservedBytes") / governed.value("budgetBytes") : null;
    }

    /**
     * The governed write's live heap peak (above the child's own baseline) over its accounted peak,
     * minus 1: negative when it kept less than it accounted. Null unless it survived with a peak.
     */
    public Double heapDrift() {
        long accounted = governed.value("peakReservedBytes");
        if (!governed.survived() || accounted <= 0) {
            return null;
        }
        return (double) (governed.value("liveHeapPeakBytes") - governed.value("heapBaselineBytes")) / accounted - 1;
    }

    /** The governed write's spill bytes over its input bytes; null unless it survived. */
    public Double spillBytesRatio() {
        return governed.survived() ? (double) governed.value("spillBytes") / Math.max(1, governed.value("inputBytes")) : null;
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
        g.put("peakOverBudget", round(peakOverBudget()));
        g.put("heapDrift", round(heapDrift()));
        g.put("spillBytesRatio", round(spillBytesRatio()));
        for (String key : new String[] {"inputBytes", "peakReservedBytes", "spillBytes", "filesRolledEarly", "writersClosedEarly",
            "sortedRows", "outputFiles", "peakWritersOpen"}) {
            g.put(key, governed.survived() ? governed.value(key) : null);
        }
        m.put("governed", g);
        Map<String, Object> p = plain.common();
        p.put("outputFiles", plain.survived() ? plain.value("outputFiles") : null);
        m.put("plain", p);
        m.put("throughputRatio", round(throughputRatio()));
        return m;
    }

    static Double round(Double value) {
        return value == null ? null : BenchTables.round2(value);
    }
}
