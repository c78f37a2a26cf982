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
 * every key docs/cli.md lists, the ratios are finite numbers, the chart and the JSON file are
 * written to {@code --out}, progress goes to stderr. No assertion depends on how fast the machine is.
 */
class BenchLagCommandTest {

    /** The keys docs/cli.md documents for {@code bench lag --json}. */
    static final String[] KEYS = {
        "quick", "cores", "lagRatio2", "lagRatioAll", "lagRatio2Runs", "lagRatioAllRuns", "peakOverBudget", "budgetBytes",
        "calibratedRowsPerSec", "calibration", "offeredRowsPerSec", "overload", "keys", "buckets", "repetitions", "runSeconds", "checkpointMillis",
        "probeMillis", "lagMillis", "level0Files", "achievedOverOffered", "checkpointMillisP99", "compactions", "compactionBusyRatio", "gcShare",
        "spills", "lagMillisBySecond", "probeGapMaxMillis", "probeMismatches", "probeCrossChecks", "loadAverage", "chart", "elapsedMillis"};

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
        for (String ratio : new String[] {"lagRatio2", "lagRatioAll", "peakOverBudget"}) {
            assertThat(json.get(ratio).isNumber()).as(ratio).isTrue();
            assertThat(Double.isFinite(json.get(ratio).asDouble())).as(ratio).isTrue();
        }
        assertThat(json.get("lagRatio2").asDouble()).isPositive();
        assertThat(json.get("lagRatioAll").asDouble()).isPositive();
        assertThat(json.get("peakOverBudget").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
        assertThat(json.get("probeMismatches").asInt()).isZero();
        assertThat(json.get("repetitions").asInt()).isEqualTo(1);
        JsonNode calibration = json.get("calibration");
        assertThat(calibration.get("source").asText()).isIn("drained", "visible", "written");
        for (String key : new String[] {"drainedRowsPerSec", "checkBusyRatio", "checkVisibleOverOffered", "checkDrainedOverOffered"}) {
            assertThat(calibration.get(key).isNumber()).as(key).isTrue();
        }
        assertThat(calibration.get("checkFellBehind").isBoolean()).isTrue();
        assertThat(calibration.get("checkSaturated").isBoolean()).isTrue();
        assertThat(json.get("probeGapMaxMillis").get("2").isNumber()).isTrue();
        assertThat(json.get("lagRatio2Runs")).hasSize(1);
        for (String threads : new String[] {"1", "2", "-1"}) {
            JsonNode lag = json.get("lagMillis").get(threads);
            assertThat(lag).as(threads).isNotNull();
            for (String key : new String[] {"mean", "p50", "p95"}) {
                assertThat(lag.get(key).isNumber()).as(threads + " " + key).isTrue();
            }
            assertThat(lag.get("steady").isBoolean()).isTrue();
            assertThat(json.get("level0Files").get(threads).get("max").isInt()).isTrue();
            assertThat(json.get("achievedOverOffered").get(threads).asDouble()).isPositive();
            JsonNode bySecond = json.get("lagMillisBySecond").get(threads);
            assertThat(bySecond).as(threads).hasSize(1);
            assertThat(bySecond.get(0)).as(threads).hasSize((int) json.get("runSeconds").asDouble());
        }

        Path chart = out.resolve(BenchLagCommand.CHART_FILE);
        assertThat(json.get("chart").asText()).isEqualTo(chart.toAbsolutePath().toString());
        assertThat(Files.readString(chart)).contains("<svg").contains(LagChart.TITLE).contains(LagChart.label("-1"));
        JsonNode file = Json.parse(Files.readString(out.resolve(BenchLagCommand.JSON_FILE)));
        assertThat(file.get("lagRatio2").asDouble()).isEqualTo(json.get("lagRatio2").asDouble());
        assertThat(run.err()).contains("bench lag: [").contains("calibration").contains("task-threads -1");
        assertThat(work.toFile().list()).isEmpty();
    }

    @Test
    void badSizesAreUsageErrors() {
        for (String[] args : new String[][] {{"--seconds", "0"}, {"--repetitions", "0"}, {"--overload", "0"},
            {"--checkpoint-millis", "5"}, {"--keys", "0"}, {"--budget", "lots"}, {"--budget", "10t"}}) {
            CliRun run = CliRun.of("bench", "lag", args[0], args[1]);
            assertThat(run.exitCode()).as(args[0]).isEqualTo(GovernanceCli.EXIT_USAGE);
            assertThat(run.err()).contains(args[0]);
        }
    }
}
