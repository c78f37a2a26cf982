package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GovernanceCliTest {

    @Test
    void noCommandIsAUsageErrorThatListsTheCommands() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("Missing command").contains("demo").contains("providers").contains("tck");
    }

    @Test
    void unknownCommandIsAUsageErrorWithASuggestion() {
        CliRun run = CliRun.of("deom");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'deom'").contains("demo").contains("--help");
    }

    static Stream<Arguments> helpOfEachCommand() {
        return Stream.of(
                Arguments.of("tck", List.of("--provider", "--classpath", "--tries", "--write-tries", "--rows", "--rule",
                        "--junit-xml", "--json")),
                Arguments.of("demo", List.of("--provider", "--budget", "--rows", "--keys", "--partitions", "--buckets",
                        "--value-bytes", "--format", "--warehouse", "--keep", "--spill-dir", "--page-size",
                        "--spill-max-bytes", "--cancel-after-rows", "--seed", "--replace", "--orphans-older-than", "--json")),
                Arguments.of("clean", List.of("--warehouse", "--older-than", "--dry-run", "--json")));
    }

    @ParameterizedTest(name = "{0} --help")
    @MethodSource("helpOfEachCommand")
    void helpListsEveryOptionAndTheExitCodes(String command, List<String> options) {
        CliRun run = CliRun.of(command, "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).as("picocli's warnings about the help text").isEmpty();
        assertThat(run.out()).contains(options).contains("Exit codes");
    }
}
