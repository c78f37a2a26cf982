package io.paimongov.cli;

import io.paimongov.benchmarks.scale.CellResult;
import io.paimongov.benchmarks.scale.RunSeries;
import io.paimongov.benchmarks.scale.ScaleReport;
import io.paimongov.benchmarks.scale.ScaleSummary;
import io.paimongov.benchmarks.scale.SpillResult;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The text form of a {@code bench scale} report: one line per cell (governed, plain Paimon with the
 * governed write's settings and with its defaults; HEAP is the live heap peak over the budget, the
 * bound measured from outside, ACCTD the runtime's own accounted peak over it), one per
 * spill-series entry, then the verdicts. Stateless.
 */
final class ScaleText {

    private ScaleText() {}

    static void print(PrintWriter out, ScaleReport r) {
        out.printf(Locale.ROOT, "%-11s %-8s %7s  %-26s %-26s %6s  %-26s %6s %6s %6s %6s %6s%n", "TABLE", "FORMAT", "WRITERS", "GOVERNED",
                "PLAIN", "RATIO", "PLAIN WITH DEFAULTS", "RATIO", "HEAP", "ACCTD", "DRIFT", "SPILL");
        for (CellResult c : r.cells()) {
            out.printf(Locale.ROOT, "%-11s %-8s %7d  %-26s %-26s %6s  %-26s %6s %6s %6s %6s %6s%n", c.cell().table().label(),
                    c.cell().format(), c.cell().writers(), outcome(c.governed()), outcome(c.plain()), num(c.throughputRatio()),
                    outcome(c.plainDefaults()), num(c.throughputRatioDefaults()), num(c.heapPeakOverBudget()),
                    num(c.accountedPeakOverBudget()), num(c.heapDrift()), num(c.writtenSpillBytesRatio()));
        }
        for (CellResult c : r.cells()) {
            if (!c.governed().survived()) {
                out.printf("governed %s %s %d writers: %s%n", c.cell().table().label(), c.cell().format(), c.cell().writers(), c.governed().reason());
            }
        }
        for (SpillResult s : r.spills()) {
            out.printf(Locale.ROOT, "spill %s %s at 5%% of the input: in memory %s, spilling %s; throughput ratio %s, spill bytes written / input %s%n",
                    s.cell().table().label(), s.cell().format(), outcome(s.inMemory()), outcome(s.spilling()), num(s.throughputRatio()),
                    num(s.writtenSpillBytesRatio()));
        }
        ScaleSummary v = r.summary();
        out.printf(Locale.ROOT, "%s; %.0f s%n", verdicts(v), r.millis() / 1e3);
    }

    /** The verdicts on one line, as the text report and the chart give them. */
    static String verdicts(ScaleSummary v) {
        return String.format(Locale.ROOT, "allCellsSurvived %s, governedNeverWorse %s (with defaults %s), maxHeapPeakOverBudget %s"
                        + " (accounted %s, fewest samples %s), maxHeapDriftAbs %s, minSpillThroughputRatio %s, maxWrittenSpillBytesRatio %s (counted %s)",
                v.allCellsSurvived(), v.governedNeverWorse(), v.governedNeverWorseDefaults(), num(v.maxHeapPeakOverBudget()),
                num(v.maxAccountedPeakOverBudget()), v.minHeapSamples() == null ? "-" : v.minHeapSamples(), num(v.maxHeapDriftAbs()),
                num(v.minSpillThroughputRatio()), num(v.maxWrittenSpillBytesRatio()), num(v.maxCountedSpillBytesRatio()));
    }

    /** {@code 123,456 rows/s} (the median run), or {@code FAILED} and the reason's first word. */
    static String outcome(RunSeries run) {
        return run.survived() ? String.format(Locale.ROOT, "%,d rows/s", run.rowsPerSec()) : "FAILED " + shortReason(run.reason());
    }

    /** The reason's kind: its text up to the first colon or parenthesis, at most 18 characters. */
    static String shortReason(String reason) {
        String head = reason.split("[:(]", 2)[0].trim();
        return head.length() <= 18 ? head : head.substring(0, 18);
    }

    static String num(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }
}
