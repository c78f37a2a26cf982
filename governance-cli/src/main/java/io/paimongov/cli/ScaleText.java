package io.paimongov.cli;

import io.paimongov.benchmarks.scale.CellResult;
import io.paimongov.benchmarks.scale.RunSeries;
import io.paimongov.benchmarks.scale.ScaleReport;
import io.paimongov.benchmarks.scale.ScaleSummary;
import io.paimongov.benchmarks.scale.SpillResult;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The text form of a {@code bench scale} report: one line per cell and per spill-series entry, then
 * the verdicts. Stateless.
 */
final class ScaleText {

    private ScaleText() {}

    static void print(PrintWriter out, ScaleReport r) {
        out.printf(Locale.ROOT, "%-11s %-8s %7s  %-26s %-26s %6s %6s %6s %6s%n", "TABLE", "FORMAT", "WRITERS", "GOVERNED", "PLAIN", "RATIO",
                "DRIFT", "PEAK", "SPILL");
        for (CellResult c : r.cells()) {
            out.printf(Locale.ROOT, "%-11s %-8s %7d  %-26s %-26s %6s %6s %6s %6s%n", c.cell().table().label(), c.cell().format(),
                    c.cell().writers(), outcome(c.governed()), outcome(c.plain()), num(c.throughputRatio()), num(c.heapDrift()),
                    num(c.peakOverBudget()), num(c.spillBytesRatio()));
        }
        for (CellResult c : r.cells()) {
            if (!c.governed().survived()) {
                out.printf("governed %s %s %d writers: %s%n", c.cell().table().label(), c.cell().format(), c.cell().writers(), c.governed().reason());
            }
        }
        for (SpillResult s : r.spills()) {
            out.printf(Locale.ROOT, "spill %s %s at 5%% of the input: in memory %s, spilling %s; throughput ratio %s, spill bytes / input %s%n",
                    s.cell().table().label(), s.cell().format(), outcome(s.inMemory()), outcome(s.spilling()), num(s.throughputRatio()),
                    num(s.spillBytesRatio()));
        }
        ScaleSummary v = r.summary();
        out.printf(Locale.ROOT, "allCellsSurvived %s, governedNeverWorse %s, maxHeapDriftAbs %s, maxPeakOverBudget %s,"
                        + " minSpillThroughputRatio %s, maxSpillBytesRatio %s; %.0f s%n", v.allCellsSurvived(), v.governedNeverWorse(),
                num(v.maxHeapDriftAbs()), num(v.maxPeakOverBudget()), num(v.minSpillThroughputRatio()), num(v.maxSpillBytesRatio()),
                r.millis() / 1e3);
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

    private static String num(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }
}
