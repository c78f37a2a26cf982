package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One grid cell measured: the governed and the plain children, all with {@code -Xmx} = {@code
 * xmxBytes}. Where both survive their first run, each side runs {@code --repeats} times, the two
 * alternating ({@link RunSeries}): the throughput ratio compares the median runs, and the numbers
 * judged against a bound (peak, heap drift, spill bytes) are the worst run's.
 *
 * @param cell what was written
 * @param baselineBytes the measured baseline ({@link ScaleRunner#baseline})
 * @param xmxBytes both children's {@code -Xmx}: the budget plus the baseline, rounded up to MiB
 * @param governed the governed children
 * @param plain the plain Paimon children
 *
 * <p>Immutable. The derived values are null where the runs they need did not survive.
 */
public record CellResult(ScaleCell cell, long baselineBytes, long xmxBytes, RunSeries governed, RunSeries plain) {

    /**
     * Governed rows/s over plain rows/s (= plain's median time / governed's median time); null unless
     * both survived.
     */
    public Double throughputRatio() {
        return governed.survived() && plain.survived()
                ? (double) plain.value("nanos") / Math.max(1, governed.value("nanos"))
                : null;
    }

    /** The governed write's accounted peak over its budget, its largest over the runs; null unless it survived. */
    public Double peakOverBudget() {
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

    /** The governed write's spill bytes over its input bytes, its largest over the runs; null unless it survived. */
    public Double spillBytesRatio() {
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
