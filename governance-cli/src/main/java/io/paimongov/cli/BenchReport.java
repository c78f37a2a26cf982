package io.paimongov.cli;

import io.paimongov.benchmarks.BenchTables;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the bench subcommands share: the first keys of their JSON report ({@code quick}, {@code
 * cores}, {@code loadAverage}) and their progress lines on stderr, {@code bench NAME: [  12.3 s]
 * line}, timed from this object's making. Not thread-safe: one command's thread.
 */
final class BenchReport {

    private final String name;
    private final PrintWriter err;
    private final long startNanos = System.nanoTime();

    /** @param name the subcommand, as in {@code bench NAME} */
    BenchReport(String name, PrintWriter err) {
        this.name = name;
        this.err = err;
    }

    /** A new report holding {@code quick}, the machine's cores and its load average now. */
    Map<String, Object> header(boolean quick) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("quick", quick);
        report.put("cores", Runtime.getRuntime().availableProcessors());
        report.put("loadAverage", BenchTables.round2(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        return report;
    }

    /** Prints one progress line to stderr. */
    void progress(String line) {
        err.printf(Locale.ROOT, "bench %s: [%6.1f s] %s%n", name, (System.nanoTime() - startNanos) / 1e9, line);
        err.flush();
    }

    /** Milliseconds since this object was made. */
    long elapsedMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
