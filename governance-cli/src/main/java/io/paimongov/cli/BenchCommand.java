package io.paimongov.cli;

import io.paimongov.benchmarks.AllocOverhead;
import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.CompactionDrain;
import io.paimongov.benchmarks.EndToEnd;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench}: end-to-end measurements, each a ratio or a yes/no from one run: settings measured
 * side by side (medians of alternating repetitions), never a timed pass/fail. P1 governed vs plain
 * throughput, P2 the live heap peak and the accounted peak against the budget (on every provider), P3 a tight heap in child JVMs, P4 spill throughput
 * and bytes, P6 cancel latency ({@link EndToEnd}), then the compaction drain with 1, 2 and -1
 * threads on 8 buckets ({@link CompactionDrain}). docs/performance.md says how each is measured.
 * The writer-count grid is the subcommand {@code bench scale} ({@link BenchScaleCommand}), the streaming
 * read-lag scenario {@code bench lag} ({@link BenchLagCommand}), jobs cancelled mid-write beside Paimon's own writers
 * {@code bench cancel} ({@link BenchCancelCommand}), the cost of the C ABI {@code bench native} ({@link BenchNativeCommand}).
 *
 * <p>{@code --quick} keeps the whole run to about three minutes on two idle cores; the full run takes
 * several. With {@code --json} stdout is exactly one JSON object whose keys docs/cli.md lists, and
 * progress goes to stderr. Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        subcommands = {BenchScaleCommand.class, BenchLagCommand.class, BenchCancelCommand.class, BenchNativeCommand.class, BenchReadCommand.class},
        description = "Measures governed writes side by side in one run: throughput vs plain Paimon, budget and heap,"
                + " a tight heap, spilling, cancel latency, compaction drain speedup, allocator overhead.")
final class BenchCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "Small sizes and fewer repetitions (about 3 minutes).")
    boolean quick;

    /** Seconds-long sizes for the project's own tests; the values mean little. */
    @Option(names = "--tiny", hidden = true)
    boolean tiny;

    @Option(names = "--json", description = "Print one JSON object with the measured values.")
    boolean json;

    @Option(names = "--rows", paramLabel = "N", description = "Compaction drain: rows per backlog commit (default 150000, 40000 with --quick).")
    Integer rows;

    @Option(names = "--repetitions", paramLabel = "N", description = "Compaction drain: drains per setting; medians are reported (default 5, 3 with --quick).")
    Integer repetitions;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the tables go (default: a temporary directory, removed after).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        int rowsPerCommit = rows != null ? rows : tiny ? 2_000 : quick ? 40_000 : 150_000;
        int reps = repetitions != null ? repetitions : tiny ? 1 : quick ? 3 : 5;
        if (rowsPerCommit < 1 || reps < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--rows and --repetitions must be at least 1");
        }
        DirOption.require(spec, "--work-dir", workDir);
        EndToEnd.Sizes sizes = tiny ? EndToEnd.Sizes.tiny() : quick ? EndToEnd.Sizes.quick() : EndToEnd.Sizes.full();
        Path dir = workDir != null ? Files.createDirectories(workDir) : ProcessTempScope.tempDirectory("paimon-gov-bench-");
        try (ShutdownCleanup shutdown = ShutdownCleanup.install()) {
            // An interrupt of the writing thread cancels a governed write; a plain one fails at its next I/O.
            shutdown.cancelOnShutdown(Thread.currentThread()::interrupt);
            if (workDir == null) {
                shutdown.removeOnShutdown(dir);
            }
            return measure(dir, rowsPerCommit, reps, sizes, shutdown);
        }
    }

    /** The measurements and the report; on a signal the report is not printed ({@link ShutdownCleanup#report}). */
    private int measure(Path dir, int rowsPerCommit, int reps, EndToEnd.Sizes sizes, ShutdownCleanup shutdown)
            throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        long start = System.nanoTime();
        Map<String, Object> measured;
        CompactionDrain.Result drain;
        AllocOverhead.Result overhead;
        try {
            measured = EndToEnd.run(dir, sizes, line -> progress(err, start, line));
            progress(err, start, String.format(
                    "compaction drain, 8 buckets x 6 sorted runs of %,d rows per commit, %d repetitions per setting ...", rowsPerCommit, reps));
            drain = CompactionDrain.run(dir.resolve("drain"), rowsPerCommit, 6, reps);
            progress(err, start, "allocator overhead: a page through each provider vs its engine's own call ...");
            overhead = AllocOverhead.measure(tiny ? AllocOverhead.Size.TINY : quick ? AllocOverhead.Size.QUICK : AllocOverhead.Size.FULL);
        } finally {
            if (workDir == null) {
                BenchTables.deleteTree(dir);
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("quick", quick);
        report.put("cores", Runtime.getRuntime().availableProcessors());
        report.putAll(measured);
        report.put("compactionSpeedup", BenchTables.round2(drain.speedup()));
        report.put("compactionSpeedupPerBucket", BenchTables.round2(drain.speedupPerBucket()));
        report.put("compactionDrainMillis", drain.medianMillis());
        report.put("compactionPeakRunning", drain.peakRunning());
        report.put("p7AllocOverhead", overhead.ratios());
        report.put("p7ProviderNanos", overhead.providerNanos());
        report.put("p7EngineNanos", overhead.engineNanos());
        report.put("repetitions", drain.repetitions());
        report.put("elapsedMillis", (System.nanoTime() - start) / 1_000_000);
        PrintWriter out = spec.commandLine().getOut();
        shutdown.report(() -> {
            if (json) {
                out.println(Json.write(report));
            } else {
                printText(out, report, drain);
            }
            out.flush();
        });
        return GovernanceCli.EXIT_OK;
    }

    /** A progress line on stderr, with the seconds since the run started (where the time goes). */
    private static void progress(PrintWriter err, long startNanos, String line) {
        err.printf(Locale.ROOT, "bench: [%5.1f s] %s%n", (System.nanoTime() - startNanos) / 1e9, line);
        err.flush();
    }

    private static void printText(PrintWriter out, Map<String, Object> r, CompactionDrain.Result drain) {
        out.printf("P1 governed / plain throughput        %s (median ms plain %s, governed %s); against plain with defaults %s (%s ms)%n",
                r.get("p1ThroughputRatio"), r.get("p1PlainMillis"), r.get("p1GovernedMillis"), r.get("p1ThroughputRatioDefaults"),
                r.get("p1PlainDefaultsMillis"));
        out.printf("P2 live heap peak / budget            %s (%s samples); accounted peak / budget %s; heap drift %s (mean %s)%n",
                r.get("p2HeapPeakOverBudget"), r.get("p2HeapSamples"), r.get("p2AccountedPeakOverBudget"), r.get("p2HeapDrift"),
                r.get("p2HeapDriftMean"));
        if (r.get("p2Providers") instanceof Map<?, ?> providers) {
            providers.forEach((provider, figures) -> {
                Map<?, ?> f = (Map<?, ?>) figures;
                out.printf("P2 %-8s (heap + native) / budget %s (%s heap, %s native; %s heap samples, %s counter samples);"
                        + " engine's counter %s; accounted %s%s%n", provider, f.get("outsidePeakOverBudget"), f.get("heapPeakOverBudget"),
                        f.get("nativePeakOverBudget"), f.get("heapSamples"), f.get("counterSamples"), f.get("enginePeakOverBudget"),
                        f.get("accountedPeakOverBudget"), "SURVIVED".equals(f.get("outcome")) ? "" : ": " + f.get("outcome") + " " + f.get("failure"));
            });
        }
        out.printf("P3 tight heap: governed %s (live heap peak / budget %s), plain with its settings %s, plain with defaults %s%n",
                r.get("p3GovernedOutcome"), r.get("p3GovernedHeapPeakOverBudget"), r.get("p3PlainOutcome"), r.get("p3PlainDefaultsOutcome"));
        out.printf("P4 spilling / in-memory throughput    %s; spill bytes written / input bytes %s (counted by the write %s)%n",
                r.get("p4SpillThroughputRatio"), r.get("p4WrittenSpillBytesRatio"), r.get("p4CountedSpillBytesRatio"));
        out.printf("P5 compaction drain, median ms by task-threads: %s%n", drain.medianMillis());
        out.printf("   compactionSpeedup T(1)/T(2) = %.2f; T(1)/T(-1) = %.2f; peak running %s%n",
                drain.speedup(), drain.speedupPerBucket(), drain.peakRunning());
        Object worst = r.get("cancelP99MillisWorstPhase");
        out.printf("P6 cancel latency ms p50 %s, p99 %s (worst phase); by phase %s%n",
                r.get("p6CancelP50Millis"), worst == null ? "UNKNOWN: no sample cancelled mid-phase in " + r.get("cancelMissedPhases") : worst,
                r.get("cancel"));
        out.printf("P7 provider / engine page time        %s (ns per page: provider %s, engine %s)%n",
                r.get("p7AllocOverhead"), r.get("p7ProviderNanos"), r.get("p7EngineNanos"));
    }
}
