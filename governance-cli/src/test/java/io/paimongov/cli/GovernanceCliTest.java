package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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

    @Test
    void tckHelpListsEveryOptionAndTheExitCodes() {
        CliRun run = CliRun.of("tck", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).as("picocli's warnings about the help text").isEmpty();
        assertThat(run.out())
                .contains("--provider", "--classpath", "--tries", "--write-tries", "--rows", "--rule", "--junit-xml", "--json")
                .contains("Exit codes");
    }

    @Test
    void demoHelpListsEveryOptionAndTheExitCodes() {
        CliRun run = CliRun.of("demo", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).as("picocli's warnings about the help text").isEmpty();
        assertThat(run.out())
                .contains("--provider", "--budget", "--rows", "--keys", "--partitions", "--buckets",
                        "--value-bytes", "--format", "--warehouse", "--keep", "--spill-dir", "--page-size",
                        "--spill-max-bytes", "--cancel-after-rows", "--seed", "--json")
                .contains("Exit codes");
    }
}
