package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench read} end to end at the hidden test size: stdout is exactly the JSON object with the
 * keys docs/cli.md lists, the governed reads of all three tables gave the model's rows (their
 * counts and checksums, computed from what was written), and progress goes to stderr. Whether plain
 * Paimon ran out of heap, and every time and heap figure, is reported but not asserted: those depend
 * on the machine.
 */
class BenchReadCommandTest {

    static final List<String> KEYS = List.of("quick", "cores", "loadAverage", "heapBytes", "budgetBytes", "runs", "rowsPerRun",
            "valueBytes", "governedSurvived", "governedOutcome", "plainOom", "plainOutcome", "heapPeakOverBudget",
            "governedLiveHeapPeakBytes", "governedOneTimeBytes", "plainLiveHeapPeakBytes", "governedRows", "expectedRows", "rowsMatch",
            "governedMergePasses", "governedSpillBytes", "governedTail", "manyRuns", "manyRowsPerRun", "manyValueBytes",
            "manyGovernedOutcome", "manyPlainOutcome", "manyHeapPeakOverBudget", "manyGovernedLiveHeapPeakBytes",
            "manyPlainLiveHeapPeakBytes", "manyRowsMatch", "manyGovernedMergePasses", "fitRuns", "fitRowsPerRun", "fitValueBytes",
            "fitAllSurvived", "throughputRatio", "throughputRatioInPasses", "fitGovernedMedianMillis", "fitTightMedianMillis",
            "fitPlainMedianMillis", "fitSectionsInPasses", "fitTightMergePasses", "fitRowsMatch", "elapsedMillis");

    @TempDir Path dir;

    @Test
    void tinyRunAsDocumentedJson() throws Exception {
        CliRun run = CliRun.of("bench", "read", "--tiny", "--json", "--work-dir", dir.resolve("work").toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        for (String key : KEYS) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.size()).as("undocumented keys in " + json).isEqualTo(KEYS.size());
        assertThat(json.get("governedSurvived").asBoolean()).as(json.get("governedTail").asText()).isTrue();
        assertThat(json.get("governedRows").asLong()).isEqualTo(json.get("expectedRows").asLong()).isPositive();
        assertThat(json.get("rowsMatch").asBoolean()).isTrue();
        assertThat(json.get("governedMergePasses").asLong()).as("the wide runs do not fit the budget together").isPositive();
        assertThat(json.get("manyRowsMatch").asBoolean()).isTrue();
        assertThat(json.get("fitRowsMatch").asBoolean()).isTrue();
        assertThat(json.get("fitTightMergePasses").asLong()).as("an eighth of the budget merges in passes").isPositive();
        assertThat(json.get("heapPeakOverBudget").isNumber()).isTrue();
        assertThat(run.err()).contains("bench read: [").contains("writing 'wide'");
    }
}
