package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench lag} end to end at the hidden test size: stdout is exactly the JSON object with
 * every key docs/cli.md lists, the per-setting figures name every setting, the chart and the JSON
 * file are written to {@code --out}, progress goes to stderr. No assertion depends on how fast the
 * machine is.
 */
class BenchLagCommandTest {

    /** The keys docs/cli.md documents for {@code bench lag --json}. */
    static final String[] KEYS = {
        "quick", "cores", "maxSteadyRowsPerSec", "maxSteadyRuns", "ceilingReached", "maxSteadyRatio2", "maxSteadyRatioAll",
        "maxSteadyOverPlain", "commonRowsPerSec", "commonLagMillis", "commonLagRatio2", "commonLagRatioAll", "commonLagRatio2Runs",
        "commonLagRatioAllRuns", "commonLagOverPlain", "peakOverBudget", "accountedPeakOverBudget", "liveHeap", "budgetBytes", "anchor",
        "stairs", "stairsRun", "orders", "keys", "ageRows", "buckets", "repetitions", "checkpointMillis", "probeMillis",
        "heapSampleMillis", "childHeapBytes", "checkpointMillisP99", "compactions", "compactionBusyRatio", "gcShare", "spills",
        "lagMillisBySecond", "probeGapMaxMillis", "probeMismatches", "probeCrossChecks", "failures", "loadAverage", "loadAverageEnd",
        "chart", "elapsedMillis"};

    /** The settings of the quick and tiny runs. */
    static final String[] SETTINGS = {"1", "2", "-1", "plain"};

    @TempDir Path dir;

    @Test
    void tinyRunAsDocumentedJson() throws Exception {
        Path out = dir.resolve("out");
        Path work = dir.resolve("work");
        CliRun run = CliRun.of("bench", "lag", "--tiny", "--json", "--out", out.toString(), "--work-dir", work.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        for (String key : KEYS) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.size()).as("undocumented keys in " + json).isEqualTo(KEYS.length);
        assertThat(json.get("peakOverBudget").isNumber()).isTrue();
        assertThat(json.get("peakOverBudget").asDouble()).as("a write holds something").isPositive();
        assertThat(json.get("accountedPeakOverBudget").asDouble()).isPositive();
        assertThat(json.get("probeMismatches").asInt()).isZero();
        assertThat(json.get("repetitions").asInt()).isEqualTo(1);
        assertThat(json.get("failures")).isEmpty();
        assertThat(json.get("anchor").get("source").asText()).isIn("drained", "visible", "written");
        assertThat(json.get("anchor").get("rowsPerSec").asLong()).isPositive();
        JsonNode rates = json.get("stairs").get("rowsPerSec");
        assertThat(rates).isNotEmpty();
        assertThat(json.get("orders").get(0)).hasSize(SETTINGS.length);
        for (String setting : SETTINGS) {
            assertThat(json.get("maxSteadyRowsPerSec").get(setting).isNumber()).as(setting).isTrue();
            assertThat(json.get("maxSteadyRuns").get(setting)).as(setting).hasSize(1);
            assertThat(json.get("ceilingReached").get(setting).isBoolean()).as(setting).isTrue();
            JsonNode heap = json.get("liveHeap").get(setting);
            assertThat(heap.get("baselineBytes").asLong()).as(setting).isPositive();
            assertThat(heap.get("samples").asInt()).as(setting).isPositive();
            JsonNode stairs = json.get("stairsRun").get(setting).get(0);
            assertThat(stairs.size()).as(setting).isBetween(1, rates.size());
            assertThat(stairs.get(0).get("rowsPerSec").asLong()).isEqualTo(rates.get(0).asLong());
            assertThat(stairs.get(0).get("steady").isBoolean()).isTrue();
            assertThat(json.get("lagMillisBySecond").get(setting)).as(setting).hasSize(1);
            assertThat(json.get("probeGapMaxMillis").get(setting).isNumber()).isTrue();
        }
        assertThat(json.get("compactions").get("plain").isNull()).as("plain Paimon has no governed metrics").isTrue();
        assertThat(json.get("compactions").get("2").isNumber()).isTrue();
        for (String setting : new String[] {"1", "2", "-1"}) {
            assertThat(json.get("maxSteadyOverPlain").has(setting)).as(setting).isTrue();
        }

        Path chart = out.resolve(BenchLagCommand.CHART_FILE);
        assertThat(json.get("chart").asText()).isEqualTo(chart.toAbsolutePath().toString());
        assertThat(Files.readString(chart)).contains("<svg").contains(LagChart.TITLE).contains(LagChart.label("-1")).contains(
                LagChart.label("plain"));
        JsonNode file = Json.parse(Files.readString(out.resolve(BenchLagCommand.JSON_FILE)));
        assertThat(file.get("maxSteadyRowsPerSec")).isEqualTo(json.get("maxSteadyRowsPerSec"));
        assertThat(run.err()).contains("bench lag: [").contains("anchor").contains("task-threads -1").contains("plain");
        assertThat(work.toFile().list()).isEmpty();
    }

    @Test
    void badSizesAreUsageErrors() {
        for (String[] args : new String[][] {{"--seconds", "1"}, {"--repetitions", "0"}, {"--checkpoint-millis", "5"}, {"--keys", "0"},
            {"--budget", "lots"}, {"--budget", "10t"}, {"--overload", "1.15"}}) {
            CliRun run = CliRun.of("bench", "lag", args[0], args[1]);
            assertThat(run.exitCode()).as(args[0]).isEqualTo(GovernanceCli.EXIT_USAGE);
            assertThat(run.err()).contains(args[0]);
        }
        // A stair whose judged half holds fewer than two checkpoints: the option that makes it so is named.
        CliRun shortStairs = CliRun.of("bench", "lag", "--seconds", "3");
        assertThat(shortStairs.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(shortStairs.err()).contains("--seconds").contains("two");
        CliRun slowCheckpoints = CliRun.of("bench", "lag", "--checkpoint-millis", "6000");
        assertThat(slowCheckpoints.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(slowCheckpoints.err()).contains("--checkpoint-millis");
    }
}
