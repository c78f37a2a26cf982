package io.paimongov.cli;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.CompactionDrain;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench}: end-to-end measurements, each a ratio of two settings measured side by side in one
 * run (medians of alternating repetitions), never a timed pass/fail. This version measures the
 * compaction backlog drain with 1, 2 and -1 threads on 8 buckets ({@link CompactionDrain}).
 *
 * <p>{@code --quick} keeps the run under a minute or so; the full run takes a few minutes. With
 * {@code --json} stdout is exactly one JSON object whose keys docs/cli.md lists. Picocli creates
 * one instance per execution; not thread-safe.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Measures governed writes side by side in one run (this version: compaction drain speedup).")
final class BenchCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "Small sizes and fewer repetitions (CI-sized).")
    boolean quick;

    @Option(names = "--json", description = "Print one JSON object with the measured values.")
    boolean json;

    @Option(names = "--rows", paramLabel = "N", description = "Rows per backlog commit (default 150000, 40000 with --quick).")
    Integer rows;

    @Option(names = "--repetitions", paramLabel = "N", description = "Drains per setting; medians are reported (default 5, 3 with --quick).")
    Integer repetitions;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the tables go (default: a temporary directory, removed after).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        int rowsPerCommit = rows != null ? rows : quick ? 40_000 : 150_000;
        int reps = repetitions != null ? repetitions : quick ? 3 : 5;
        if (rowsPerCommit < 1 || reps < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--rows and --repetitions must be at least 1");
        }
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("paimon-gov-bench-");
        PrintWriter err = spec.commandLine().getErr();
        err.printf("bench: compaction drain, 8 buckets x 6 sorted runs of %,d rows per commit, %d repetitions per setting ...%n", rowsPerCommit, reps);
        err.flush();
        long start = System.nanoTime();
        CompactionDrain.Result drain;
        try {
            drain = CompactionDrain.run(dir, rowsPerCommit, 6, reps);
        } finally {
            if (workDir == null) {
                BenchTables.deleteTree(dir);
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("quick", quick);
        report.put("cores", Runtime.getRuntime().availableProcessors());
        report.put("compactionSpeedup", round(drain.speedup()));
        report.put("compactionSpeedupPerBucket", round(drain.speedupPerBucket()));
        report.put("compactionDrainMillis", drain.medianMillis());
        report.put("compactionPeakRunning", drain.peakRunning());
        report.put("repetitions", drain.repetitions());
        report.put("elapsedMillis", (System.nanoTime() - start) / 1_000_000);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(report));
        } else {
            out.printf("compaction drain, median ms by task-threads: %s%n", drain.medianMillis());
            out.printf("compactionSpeedup T(1)/T(2) = %.2f; T(1)/T(-1) = %.2f; peak running %s%n",
                    drain.speedup(), drain.speedupPerBucket(), drain.peakRunning());
        }
        out.flush();
        return GovernanceCli.EXIT_OK;
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
