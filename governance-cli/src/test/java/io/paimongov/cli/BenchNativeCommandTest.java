package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench native} end to end at the hidden test size: stdout is exactly the JSON object with the
 * keys docs/cli.md lists, every write read all its rows (the run would fail otherwise), the hosts got
 * every byte back, and progress goes to stderr. No assertion depends on how fast the machine is.
 */
class BenchNativeCommandTest {

    static final List<String> KEYS = List.of("quick", "cores", "loadAverage", "rows", "inputBytes", "repetitions",
            "budgetFitsBytes", "heapFitsMedianMillis", "nativeFitsMedianMillis", "nativeDirectFitsMedianMillis",
            "throughputRatio", "throughputRatioDirect", "budgetSpillsBytes", "heapSpillsMedianMillis", "nativeSpillsMedianMillis",
            "nativeDirectSpillsMedianMillis", "throughputRatioSpilling", "throughputRatioDirectSpilling", "heapCallNanos",
            "nativeCallNanos", "nativeDirectCallNanos", "hostHeldAtEnd", "hostDetachHeldBytes", "elapsedMillis");

    @TempDir Path dir;

    @Test
    void tinyRunAsDocumentedJson() throws Exception {
        Path work = dir.resolve("work");
        CliRun run = CliRun.of("bench", "native", "--tiny", "--json", "--work-dir", work.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        for (String key : KEYS) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.size()).as("undocumented keys in " + json).isEqualTo(KEYS.size());
        assertThat(json.get("rows").asInt()).isEqualTo(20_000);
        assertThat(json.get("budgetSpillsBytes").asLong()).isLessThan(json.get("budgetFitsBytes").asLong());
        assertThat(json.get("throughputRatio").isNumber()).isTrue();
        assertThat(json.get("nativeCallNanos").asDouble()).isPositive();
        assertThat(json.get("hostHeldAtEnd").asLong()).isZero();
        assertThat(json.get("hostDetachHeldBytes").asLong()).isZero();
        assertThat(run.err()).contains("bench native: [").contains("one call");
        assertThat(work.toFile().list()).as("what the run left in the work dir").isEmpty();
    }
}
