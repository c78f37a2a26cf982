package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class BenchCommandTest {

    @Test
    void jsonHasTheCompactionKeysAndNothingElseOnStdout() throws Exception {
        CliRun run = CliRun.of("bench", "--json", "--rows", "2000", "--repetitions", "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        for (String key : new String[] {"quick", "cores", "compactionSpeedup", "compactionSpeedupPerBucket", "compactionDrainMillis", "compactionPeakRunning", "repetitions", "elapsedMillis"}) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.get("compactionSpeedup").asDouble()).isPositive();
        assertThat(json.get("compactionDrainMillis").has("1")).isTrue();
        assertThat(json.get("compactionDrainMillis").has("2")).isTrue();
        assertThat(json.get("compactionDrainMillis").has("-1")).isTrue();
        assertThat(json.get("compactionPeakRunning").get("1").asInt()).isEqualTo(1);
        assertThat(run.err()).contains("bench: compaction drain");
    }

    @Test
    void badSizesAreUsageErrors() {
        CliRun run = CliRun.of("bench", "--rows", "0");
        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("--rows");
    }
}
