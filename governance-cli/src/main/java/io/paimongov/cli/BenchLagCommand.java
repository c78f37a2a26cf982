package io.paimongov.cli;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.lag.LagReport;
import io.paimongov.benchmarks.lag.ReadLag;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench lag}: how much a streaming deletion-vector primary-key table can be fed while a batch
 * reader's view keeps up, with the governed write's {@code compaction.task-threads} 1, 2 and -1 and
 * plain Paimon's single compaction thread beside them, each setting in a JVM of its own ({@link
 * ReadLag}; docs/performance.md says how it is measured). The harness only measures and reports:
 * the command exits 0 whatever the figures, 3 when a setting's run failed (the report still names
 * it).
 *
 * <p>With {@code --json} stdout is exactly one JSON object whose keys docs/cli.md lists, and
 * progress goes to stderr. The report is also written to {@code lag.json} and the chart to {@code
 * lag.svg} in {@code --out} (default {@value #DEFAULT_OUT} in the temp directory, replaced by each
 * run). Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "lag",
        mixinStandardHelpOptions = true,
        description = "Read lag of a streaming deletion-vector table by compaction threads: per setting (task-threads 1, 2, -1 and"
                + " plain Paimon) the highest offered rate whose lag stays steady, the steady lag at a rate every setting sustains,"
                + " the live heap's peak over the budget, and a chart.")
final class BenchLagCommand implements Callable<Integer> {

    static final String JSON_FILE = "lag.json";
    static final String CHART_FILE = "lag.svg";
    static final String DEFAULT_OUT = "paimon-governance-bench-lag";

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "One repetition of four settings (plain Paimon with its defaults left out), 15 s stairs"
            + " and a 10 s anchor (about seven minutes on two cores).")
    boolean quick;

    /** Seconds-long sizes for the project's own tests; the values mean little. */
    @Option(names = "--tiny", hidden = true)
    boolean tiny;

    @Option(names = "--json", description = "Print one JSON object with the measured values.")
    boolean json;

    @Option(names = "--seconds", paramLabel = "N", description = "Seconds of each stair of the rate search (default 20, 15 with"
            + " --quick); the second half of each is judged; at least 2.")
    Integer seconds;

    @Option(names = "--repetitions", paramLabel = "N", description = "Climbs per setting, in an order rotated per repetition; ratios"
            + " are paired per repetition and the medians reported (default 3, 1 with --quick).")
    Integer repetitions;

    @Option(names = "--checkpoint-millis", paramLabel = "N", description = "Interval of prepareCommit and commit (default 1000);"
            + " shorter intervals mean more compactions per second for the same buckets.")
    Long checkpointMillis;

    @Option(names = "--keys", paramLabel = "N", description = "Key space of the table (default " + ReadLag.KEYS + "); every run"
            + " starts from a table holding every key, so more keys make each compaction costlier.")
    Integer keys;

    @Option(names = "--budget", paramLabel = "SIZE", description = "The governed budget of every run (default 64m); each setting's JVM"
            + " gets four times it as heap, at least 2 GiB.")
    String budget;

    @Option(names = "--out", paramLabel = "DIR", description = "Where lag.json and lag.svg go (created if missing; default "
            + DEFAULT_OUT + " in the temp directory).")
    Path out;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the tables go (default: a temporary directory, removed after).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        ReadLag.Sizes sizes = sizes();
        Path outDir = out != null ? out : ProcessTempScope.outside().resolve(DEFAULT_OUT);
        DirOption.require(spec, "--out", outDir);
        DirOption.require(spec, "--work-dir", workDir);
        Path dir = workDir != null ? Files.createDirectories(workDir) : ProcessTempScope.tempDirectory("paimon-gov-lag-");
        try (ShutdownCleanup shutdown = ShutdownCleanup.install()) {
            // An interrupt of this thread kills the running child JVM; nothing is reported.
            shutdown.cancelOnShutdown(Thread.currentThread()::interrupt);
            if (workDir == null) {
                shutdown.removeOnShutdown(dir);
            }
            return measure(sizes, dir, outDir, shutdown);
        }
    }

    private ReadLag.Sizes sizes() {
        ReadLag.Sizes sizes = tiny ? ReadLag.Sizes.tiny() : quick ? ReadLag.Sizes.quick() : ReadLag.Sizes.full();
        try {
            if (seconds != null) {
                if (seconds < 2) {
                    throw new IllegalArgumentException("--seconds must be at least 2: " + seconds);
                }
                sizes = named("--seconds", sizes::withStairSeconds, seconds);
            }
            if (repetitions != null) {
                if (repetitions < 1) {
                    throw new IllegalArgumentException("--repetitions must be at least 1: " + repetitions);
                }
                sizes = sizes.withRepetitions(repetitions);
            }
            if (checkpointMillis != null) {
                if (checkpointMillis < 10) {
                    throw new IllegalArgumentException("--checkpoint-millis must be at least 10: " + checkpointMillis);
                }
                sizes = named("--checkpoint-millis", sizes::withCheckpointMillis, checkpointMillis);
            }
            if (keys != null) {
                if (keys < 1) {
                    throw new IllegalArgumentException("--keys must be at least 1: " + keys);
                }
                sizes = sizes.withKeys(keys);
            }
            if (budget != null) {
                sizes = sizes.withBudgetBytes(SizeBounds.budgetOption(budget));
            }
            return sizes;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code with.apply(value)}, an error of the sizes' own checks naming {@code option}. */
    private static <T> ReadLag.Sizes named(String option, java.util.function.Function<T, ReadLag.Sizes> with, T value) {
        try {
            return with.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    /** The runs, the files in the out directory and the report; on a signal the report is not printed. */
    private int measure(ReadLag.Sizes sizes, Path dir, Path outDir, ShutdownCleanup shutdown) throws Exception {
        BenchReport bench = new BenchReport("lag", spec.commandLine().getErr());
        LagReport report;
        try {
            report = ReadLag.run(dir, sizes, bench::progress);
        } finally {
            if (workDir == null) {
                BenchTables.deleteTree(dir);
            }
        }
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("quick", quick);
        map.put("cores", Runtime.getRuntime().availableProcessors());
        map.putAll(report.toMap());
        Files.createDirectories(outDir);
        Path chart = outDir.resolve(CHART_FILE).toAbsolutePath();
        LagChart.write(report, chart);
        map.put("chart", chart.toString());
        map.put("elapsedMillis", bench.elapsedMillis());
        Files.writeString(outDir.resolve(JSON_FILE), Json.write(map) + System.lineSeparator());
        bench.progress("wrote " + outDir.resolve(JSON_FILE) + " and " + chart);
        PrintWriter stdout = spec.commandLine().getOut();
        shutdown.report(() -> {
            if (json) {
                stdout.println(Json.write(map));
            } else {
                printText(stdout, map);
            }
            stdout.flush();
        });
        return report.runs().stream().anyMatch(r -> r.failure() != null) ? GovernanceCli.EXIT_FAILURE : GovernanceCli.EXIT_OK;
    }

    private static void printText(PrintWriter out, Map<String, Object> r) {
        out.printf("highest steady rate, rows/s by setting      %s (2 / 1: %s, -1 / 1: %s; over plain %s)%n", r.get("maxSteadyRowsPerSec"),
                r.get("maxSteadyRatio2"), r.get("maxSteadyRatioAll"), r.get("maxSteadyOverPlain"));
        out.printf("steady lag ms at %s rows/s by setting   %s (2 / 1: %s, -1 / 1: %s; over plain %s)%n", r.get("commonRowsPerSec"),
                r.get("commonLagMillis"), r.get("commonLagRatio2"), r.get("commonLagRatioAll"), r.get("commonLagOverPlain"));
        out.printf("live heap peak / budget                     %s (accounted %s); probe mismatches %s%n", r.get("peakOverBudget"),
                r.get("accountedPeakOverBudget"), r.get("probeMismatches"));
        out.printf("failures                                    %s%n", r.get("failures"));
        out.printf("chart                                       %s%n", r.get("chart"));
    }

}
