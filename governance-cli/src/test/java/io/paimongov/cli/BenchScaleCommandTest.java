package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench scale} end to end: one tiny cell and its spill pair through the real child JVMs,
 * the JSON's documented keys, values that come from the run, and the files {@code --out} writes.
 */
class BenchScaleCommandTest {

    /** Binary row of (INT, INT, STRING of 16 bytes): 8 bytes of null bits, 3 fixed slots of 8, the 16 string bytes. */
    private static final long ROW_BYTES_16 = 8 + 3 * 8 + 16;
    private static final int ROWS = 20_000;

    @TempDir Path dir;

    @Test
    void oneCellAndItsSpillPairAsDocumentedJson() throws Exception {
        Path out = dir.resolve("out");
        CliRun run = CliRun.of("bench", "scale", "--json", "--writers", "8", "--formats", "parquet", "--tables", "pk", "--rows",
                Integer.toString(ROWS), "--row-bytes", "16", "--budget", "16m", "--timeout-seconds", "120", "--sample-millis", "200", "--spill-min-budget", "1k",
                "--repeats", "1", "--min-series-seconds", "0", "--out", out.toString(), "--work-dir", dir.resolve("work").toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        for (String key : new String[] {
            "quick", "cores", "allCellsSurvived", "governedNeverWorse", "governedNeverWorseDefaults", "maxHeapDriftAbs",
            "maxHeapPeakOverBudget", "maxAccountedPeakOverBudget", "minHeapSamples", "minSpillThroughputRatio",
            "maxWrittenSpillBytesRatio", "maxCountedSpillBytesRatio", "cellCount", "governedSurvivedCells", "plainSurvivedCells", "plainDefaultsSurvivedCells", "timeoutSeconds",
            "sampleMillis", "baselines",
            "cells", "spill", "seconds", "chart", "repeats", "minSeriesSeconds"}) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.get("cellCount").asInt()).isEqualTo(1);
        assertThat(json.get("timeoutSeconds").asLong()).isEqualTo(120);
        assertThat(json.get("repeats").asInt()).isEqualTo(1);
        assertThat(json.get("minSeriesSeconds").asDouble()).isZero();
        JsonNode cell = json.get("cells").get(0);
        assertThat(cell.get("table").asText()).isEqualTo("pk");
        assertThat(cell.get("format").asText()).isEqualTo("parquet");
        assertThat(cell.get("writers").asInt()).isEqualTo(8);
        assertThat(cell.get("rows").asInt()).isEqualTo(ROWS);
        assertThat(cell.get("inputBytes").asLong()).isEqualTo(ROWS * ROW_BYTES_16);
        assertThat(cell.get("budgetBytes").asLong()).isEqualTo(16L << 20);
        long baseline = json.get("baselines").get(0).get("bytes").asLong();
        assertThat(cell.get("baselineBytes").asLong()).isEqualTo(baseline).isPositive();
        assertThat(cell.get("xmxBytes").asLong()).isGreaterThanOrEqualTo((16L << 20) + baseline);

        JsonNode governed = cell.get("governed");
        assertThat(governed.get("survived").asBoolean()).as(governed.toString()).isTrue();
        assertThat(governed.get("reason").isNull()).isTrue();
        assertThat(governed.get("inputBytes").asLong()).isEqualTo(ROWS * ROW_BYTES_16);
        assertThat(governed.get("rowsPerSec").asLong()).isPositive();
        assertThat(governed.get("accountedPeakOverBudget").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
        assertThat(governed.get("heapPeakOverBudget").asDouble()).isPositive();
        assertThat(governed.has("peakOverBudget")).as("renamed accountedPeakOverBudget").isFalse();
        assertThat(governed.get("heapSamples").asInt()).isPositive();
        assertThat(json.get("maxHeapPeakOverBudget").asDouble()).isEqualTo(governed.get("heapPeakOverBudget").asDouble());
        assertThat(json.get("maxAccountedPeakOverBudget").asDouble()).isEqualTo(governed.get("accountedPeakOverBudget").asDouble());
        assertThat(governed.get("runs").asInt()).isEqualTo(1);
        assertThat(governed.get("secondsRuns")).hasSize(1);
        for (String key : new String[] {"seconds", "heapDrift", "liveHeapPeakBytes", "peakReservedBytes", "spillBytes", "writtenSpillBytesRatio", "countedSpillBytesRatio", "spillWrittenBytes",
            "filesRolledEarly", "writersClosedEarly", "sortedRows", "outputFiles", "peakWritersOpen"}) {
            assertThat(governed.get(key).isNumber()).as(key).isTrue();
        }
        JsonNode plain = cell.get("plain");
        assertThat(plain.get("survived").asBoolean()).as(plain.toString()).isTrue();
        assertThat(plain.get("outputFiles").asLong()).isGreaterThanOrEqualTo(8);
        assertThat(plain.get("heapPeakOverBudget").isNumber()).isTrue();
        assertThat(cell.get("throughputRatio").asDouble()).isPositive();
        JsonNode defaults = cell.get("plainDefaults");
        assertThat(defaults.get("survived").asBoolean()).as(defaults.toString()).isTrue();
        assertThat(cell.get("throughputRatioDefaults").asDouble()).isPositive();
        assertThat(json.get("allCellsSurvived").asBoolean()).isTrue();

        // The spill pair: the same rows, in memory and at 5% of the input (which the runtime may refuse: then it says why).
        JsonNode spill = json.get("spill").get(0);
        assertThat(spill.get("table").asText()).isEqualTo("pk");
        assertThat(spill.get("inputBytes").asLong()).isEqualTo(ROWS * ROW_BYTES_16);
        assertThat(spill.get("spillBudgetBytes").asLong()).isEqualTo(ROWS * ROW_BYTES_16 / 20);
        assertThat(spill.get("inMemoryBudgetBytes").asLong()).isGreaterThan(ROWS * ROW_BYTES_16);
        JsonNode spilling = spill.get("spilling");
        assertThat(spilling.get("survived").asBoolean() || !spilling.get("reason").asText().isEmpty()).isTrue();

        Path file = out.resolve("scale.json");
        assertThat(Json.parse(Files.readString(file)).get("cells").get(0).get("inputBytes").asLong()).isEqualTo(ROWS * ROW_BYTES_16);
        Path chart = out.resolve("scale.svg");
        assertThat(json.get("chart").asText()).isEqualTo(chart.toAbsolutePath().toString());
        assertThat(Files.readString(chart)).contains("<svg").contains("8 writers").contains("pk parquet");
        assertThat(run.err()).contains("bench scale: [").contains("cell 1/1 pk parquet 8 writers");
    }

    @Test
    void badShapesAreUsageErrors() {
        CliRun pk = CliRun.of("bench", "scale", "--writers", "12", "--tables", "pk");
        assertThat(pk.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(pk.err()).contains("--writers").contains("multiple of 8");
        CliRun kind = CliRun.of("bench", "scale", "--tables", "pk,mor");
        assertThat(kind.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(kind.err()).contains("--tables").contains("pk-dynamic");
        CliRun budget = CliRun.of("bench", "scale", "--budget", "lots");
        assertThat(budget.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(budget.err()).contains("--budget");

        CliRun tenTebibytes = CliRun.of("bench", "scale", "--budget", "10t");
        assertThat(tenTebibytes.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(tenTebibytes.err()).contains("Invalid value for option '--budget': " + (10L << 40) + " bytes")
                .contains("this machine's memory");
        CliRun floor = CliRun.of("bench", "scale", "--spill-min-budget", "0");
        assertThat(floor.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(floor.err()).contains("--spill-min-budget");
        assertThat(CliRun.of("bench", "scale", "--timeout-seconds", "0").err()).contains("--timeout-seconds");
        CliRun repeats = CliRun.of("bench", "scale", "--repeats", "0");
        assertThat(repeats.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(repeats.err()).contains("--repeats");
    }
}
