package io.paimongov.cli;

import io.paimongov.benchmarks.ReadUnderHeap;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench read}: a merge-on-read of many sorted runs, governed against plain Paimon in child
 * JVMs of the same heap ({@link ReadUnderHeap}). docs/performance.md says how it is measured; like
 * {@code bench}, it only reports and exits 0 whatever it finds.
 *
 * <p>With {@code --json} stdout is exactly one JSON object whose keys docs/cli.md lists, and
 * progress goes to stderr. Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "read",
        mixinStandardHelpOptions = true,
        description = "A merge-on-read of a table of many sorted runs, governed against plain Paimon in JVMs of the same heap:"
                + " who survives, the governed read's live heap over its budget, and throughput where both survive.")
final class BenchReadCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "Half the sizes (a 96 MiB heap instead of 192 MiB) and 3 reads instead of 5 (about a minute on two cores).")
    boolean quick;

    @Mixin BenchRunOptions run;

    @Override
    public Integer call() throws Exception {
        ReadUnderHeap.Sizes sizes = run.tiny ? ReadUnderHeap.Sizes.tiny() : quick ? ReadUnderHeap.Sizes.quick() : ReadUnderHeap.Sizes.full();
        DirOption.require(spec, "--work-dir", run.workDir);
        PrintWriter out = spec.commandLine().getOut();
        new BenchReport("read", spec.commandLine().getErr()).runIn(run.workDir, "paimon-gov-read-", quick, run.json, out,
                (dir, progress) -> ReadUnderHeap.run(dir, sizes, progress), report -> {
                    out.printf("wide runs (%s x %s rows of %s bytes), heap %s, budget %s: governed %s, plain %s%n", report.get("runs"),
                            report.get("rowsPerRun"), report.get("valueBytes"), DemoReport.bytes((Long) report.get("heapBytes")),
                            DemoReport.bytes((Long) report.get("budgetBytes")), report.get("governedOutcome"), report.get("plainOutcome"));
                    out.printf("governed live heap over budget: %s; rows match the model: %s (%s merge passes)%n",
                            report.get("heapPeakOverBudget"), report.get("rowsMatch"), report.get("governedMergePasses"));
                    out.printf("many runs (%s): governed %s (live heap over budget %s), plain %s%n", report.get("manyRuns"),
                            report.get("manyGovernedOutcome"), report.get("manyHeapPeakOverBudget"), report.get("manyPlainOutcome"));
                    out.printf("few runs, governed over plain throughput: %s; with an eighth of the budget (in passes): %s%n",
                            report.get("throughputRatio"), report.get("throughputRatioInPasses"));
                });
        return GovernanceCli.EXIT_OK;
    }
}
