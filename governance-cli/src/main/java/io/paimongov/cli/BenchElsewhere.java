package io.paimongov.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code bench} where the benchmarks are not on the class path (the operator archive): it says where
 * bench runs ({@link LabTool}) and exits with the usage code, whatever arguments it was given.
 * Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Measures governed writes side by side; in the lab tool only (./paimon-governance from a source"
                + " checkout), since this distribution leaves the benchmarks out.")
final class BenchElsewhere implements Callable<Integer> {

    @Spec CommandSpec spec;

    /** Whatever bench would take; none of it is read. */
    @Unmatched List<String> arguments;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("error: " + LabTool.missing("bench"));
        return GovernanceCli.EXIT_USAGE;
    }
}
