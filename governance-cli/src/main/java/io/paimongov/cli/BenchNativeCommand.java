package io.paimongov.cli;

import io.paimongov.benchmarks.NativeOverhead;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench native}: what governing through the C ABI costs ({@link NativeOverhead}): the same
 * governed write on the native provider over its reference host and on the heap provider, side by
 * side, and one reservation round trip on each. docs/performance.md says how it is measured; like
 * {@code bench}, it only reports and exits 0 whatever the ratios.
 *
 * <p>With {@code --json} stdout is exactly one JSON object whose keys docs/cli.md lists, and
 * progress goes to stderr. Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "native",
        mixinStandardHelpOptions = true,
        description = "The cost of governing through the C ABI: a governed write on the native provider (reference host)"
                + " against the same write on the heap provider, and one reservation round trip on each.")
final class BenchNativeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "150,000 rows and 3 repetitions instead of 400,000 and 7 (under a minute on two cores).")
    boolean quick;

    @Mixin BenchRunOptions run;

    @Override
    public Integer call() throws Exception {
        NativeOverhead.Sizes sizes = run.tiny ? NativeOverhead.Sizes.tiny() : quick ? NativeOverhead.Sizes.quick() : NativeOverhead.Sizes.full();
        DirOption.require(spec, "--work-dir", run.workDir);
        PrintWriter out = spec.commandLine().getOut();
        new BenchReport("native", spec.commandLine().getErr()).runIn(run.workDir, "paimon-gov-native-", quick, run.json, out,
                (dir, progress) -> NativeOverhead.run(dir, sizes, progress), report -> {
                    out.printf("native over heap throughput, budget that holds the input: %s (median ms heap %s, native %s)%n",
                            report.get("throughputRatio"), report.get("heapFitsMedianMillis"), report.get("nativeFitsMedianMillis"));
                    out.printf("native over heap throughput, spilling budget: %s (median ms heap %s, native %s)%n",
                            report.get("throughputRatioSpilling"), report.get("heapSpillsMedianMillis"), report.get("nativeSpillsMedianMillis"));
                    out.printf("native (PG_NO_TIMEOUT) over heap throughput: %s, spilling %s%n", report.get("throughputRatioDirect"),
                            report.get("throughputRatioDirectSpilling"));
                    out.printf("tryReserve + release of 4 KiB: heap %s ns, native %s ns, native (PG_NO_TIMEOUT) %s ns%n", report.get("heapCallNanos"),
                            report.get("nativeCallNanos"), report.get("nativeDirectCallNanos"));
                });
        return GovernanceCli.EXIT_OK;
    }
}
