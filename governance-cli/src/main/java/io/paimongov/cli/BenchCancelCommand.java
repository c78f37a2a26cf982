package io.paimongov.cli;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.cancel.JobCancelBench;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench cancel}: jobs cancelled through the engine's front door, mid-write, the governed
 * writer beside Paimon's own ({@link JobCancelBench}): Flink jobs on a MiniCluster (Paimon's
 * {@code FlinkSinkBuilder} vs {@code GovernedPaimonSink}) and Spark jobs in local mode (plain
 * Paimon in the shape of Paimon's Spark writer vs {@code GovernedPaimonWriter}), each engine in a
 * child JVM. A command of its own rather than a part of {@code bench}: it starts two engines in
 * child JVMs and runs for a minute or two, which {@code bench --quick} cannot afford, and it
 * measures jobs, where {@code bench} measures writes. docs/performance.md says how it is measured;
 * like {@code bench}, it only reports and exits 0 whatever the ratios.
 *
 * <p>With {@code --json} stdout is exactly one JSON object whose keys docs/cli.md lists, and
 * progress goes to stderr. Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "cancel",
        mixinStandardHelpOptions = true,
        description = "Time from cancelling a Flink or Spark job mid-write to every task cancelled, the governed writer beside"
                + " Paimon's own, and what the cancelled governed jobs left behind.")
final class BenchCancelCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "6 pairs per engine instead of 20 (under a minute on two cores).")
    boolean quick;

    /** Seconds-long sizes for the project's own tests; the values mean little. */
    @Option(names = "--tiny", hidden = true)
    boolean tiny;

    @Option(names = "--json", description = "Print one JSON object with the measured values.")
    boolean json;

    @Option(names = "--engines", paramLabel = "ENGINE", split = ",",
            description = "Which engines to measure: flink, spark, or both (default flink,spark).")
    List<String> engines;

    @Option(names = "--pairs", paramLabel = "N", description = "Timed (paimon, governed) pairs per engine (default 20, 6 with --quick).")
    Integer pairs;

    @Option(names = "--rows", paramLabel = "N", description = "Rows of every job (default 1000000).")
    Long rows;

    @Option(names = "--cancel-after-rows", paramLabel = "N", description = "Rows handed to the sink before the cancel (default 500000);"
            + " fewer than --rows.")
    Long cancelAfterRows;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the tables and the engines' temp dirs go (default: a temporary"
            + " directory, removed after).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        JobCancelBench.Sizes sizes = sizes();
        Set<JobCancelBench.Engine> which = engines();
        DirOption.require(spec, "--work-dir", workDir);
        Path dir = workDir != null ? Files.createDirectories(workDir) : ProcessTempScope.tempDirectory("paimon-gov-cancel-");
        try (ShutdownCleanup shutdown = ShutdownCleanup.install()) {
            // The measuring thread waits on child JVMs; an interrupt kills the child (ChildJvm), and no report is printed.
            shutdown.cancelOnShutdown(Thread.currentThread()::interrupt);
            if (workDir == null) {
                shutdown.removeOnShutdown(dir);
            }
            return measure(sizes, which, dir, shutdown);
        }
    }

    private JobCancelBench.Sizes sizes() {
        JobCancelBench.Sizes sizes = tiny ? JobCancelBench.Sizes.tiny() : quick ? JobCancelBench.Sizes.quick() : JobCancelBench.Sizes.full();
        try {
            if (pairs != null) {
                if (pairs < 1) {
                    throw new IllegalArgumentException("--pairs must be at least 1: " + pairs);
                }
                sizes = sizes.withPairs(pairs);
            }
            if (rows != null || cancelAfterRows != null) {
                long r = rows != null ? rows : sizes.flink().rows();
                long c = cancelAfterRows != null ? cancelAfterRows : sizes.flink().cancelAfterRows();
                if (c < 1 || c >= r) {
                    throw new IllegalArgumentException("--cancel-after-rows must be at least 1 and fewer than --rows: " + c + " of " + r);
                }
                sizes = sizes.withRows(r, c);
            }
            return sizes;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Set<JobCancelBench.Engine> engines() {
        if (engines == null) {
            return EnumSet.allOf(JobCancelBench.Engine.class);
        }
        Set<JobCancelBench.Engine> set = EnumSet.noneOf(JobCancelBench.Engine.class);
        for (String e : engines) {
            switch (e.trim().toLowerCase(Locale.ROOT)) {
                case "flink" -> set.add(JobCancelBench.Engine.FLINK);
                case "spark" -> set.add(JobCancelBench.Engine.SPARK);
                default -> throw new ParameterException(spec.commandLine(), "--engines: unknown engine '" + e + "' (flink, spark)");
            }
        }
        return set;
    }

    /** The children and the report; on a signal the report is not printed ({@link ShutdownCleanup#report}). */
    private int measure(JobCancelBench.Sizes sizes, Set<JobCancelBench.Engine> which, Path dir, ShutdownCleanup shutdown) throws Exception {
        BenchReport bench = new BenchReport("cancel", spec.commandLine().getErr());
        Map<String, Object> report = bench.header(quick);
        try {
            report.putAll(JobCancelBench.run(dir, sizes, which, bench::progress));
        } finally {
            if (workDir == null) {
                BenchTables.deleteTree(dir);
            }
        }
        report.put("elapsedMillis", bench.elapsedMillis());
        PrintWriter out = spec.commandLine().getOut();
        shutdown.report(() -> {
            if (json) {
                out.println(Json.write(report));
            } else {
                printText(out, report, which);
            }
            out.flush();
        });
        return GovernanceCli.EXIT_OK;
    }

    private static void printText(PrintWriter out, Map<String, Object> r, Set<JobCancelBench.Engine> which) {
        for (JobCancelBench.Engine engine : which) {
            String e = engine.name().toLowerCase(Locale.ROOT);
            String memory = engine == JobCancelBench.Engine.FLINK ? "ManagedMemoryBack" : "TaskMemoryBack";
            out.printf("%s cancel to every task ended, governed / paimon: p50 %s, p90 %s (ms p50 %s, p90 %s, max %s)%n", e,
                    r.get(e + "CancelRatioP50"), r.get(e + "CancelRatioP90"), r.get(e + "CancelP50Millis"), r.get(e + "CancelP90Millis"),
                    r.get(e + "CancelMaxMillis"));
            out.printf("%s cancel to the job's end, ms p50 %s, max %s%n", e, r.get(e + "JobEndP50Millis"), r.get(e + "JobEndMaxMillis"));
            out.printf("%s governed jobs left nothing: %s (no snapshot %s, no spill scope %s, memory back %s, no data files %s)%n", e,
                    r.get(e + "GovernedLeftNothing"), r.get(e + "GovernedNoSnapshot"), r.get(e + "GovernedNoSpillScope"),
                    r.get(e + "Governed" + memory), r.get(e + "GovernedNoDataFiles"));
        }
    }
}
