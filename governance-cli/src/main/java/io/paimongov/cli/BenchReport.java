package io.paimongov.cli;

import io.paimongov.benchmarks.BenchTables;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** What a bench measures in its work directory: the report's values, in a stable order. */
    @FunctionalInterface
    interface Measure {
        Map<String, Object> run(Path dir, java.util.function.Consumer<String> progress) throws Exception;
    }

    /**
     * The run of a bench that measures in a work directory: {@code workDir}, or a temporary
     * directory named {@code tempPrefix}... removed after (and on a signal); child processes stopped
     * on a signal; then the report ({@link #header} first, the measure's values, {@code
     * elapsedMillis}) as one JSON object on {@code out} with {@code json}, else as {@code text}
     * prints it. On a signal the report is not printed ({@link ShutdownCleanup#report}).
     */
    void runIn(Path workDir, String tempPrefix, boolean quick, boolean json, PrintWriter out, Measure measure,
            java.util.function.Consumer<Map<String, Object>> text) throws Exception {
        Path dir = workDir != null ? Files.createDirectories(workDir) : ProcessTempScope.tempDirectory(tempPrefix);
        Map<String, Object> report = header(quick);
        try (ShutdownCleanup shutdown = ShutdownCleanup.install()) {
            shutdown.stopChildProcessesOnShutdown();
            if (workDir == null) {
                shutdown.removeOnShutdown(dir);
            }
            try {
                report.putAll(measure.run(dir, this::progress));
            } finally {
                if (workDir == null) {
                    BenchTables.deleteTree(dir);
                }
            }
            report.put("elapsedMillis", elapsedMillis());
            shutdown.report(() -> {
                if (json) {
                    out.println(Json.write(report));
                } else {
                    text.accept(report);
                }
                out.flush();
            });
        }
    }

    /** Milliseconds since this object was made. */
    long elapsedMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
