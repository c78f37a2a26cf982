package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GovernanceCliTest {

    @Test
    void noCommandIsAUsageErrorThatListsTheCommands() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("Missing command").contains("providers");
    }

    @Test
    void unknownCommandIsAUsageErrorWithASuggestion() {
        CliRun run = CliRun.of("provider");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'provider'").contains("providers").contains("--help");
    }
}
