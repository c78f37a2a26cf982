package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code demo --provider flink} and {@code --provider spark}: a real local cluster and a real local
 * Spark session write the demo table through their SQL path, the table read back equals the model,
 * the report has the heap demo's keys, the write spills under a small budget and gives everything
 * back; a Flink job cancelled mid-write commits nothing.
 */
class DemoEnginesTest {

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"flink", "spark"})
    void anEngineWritesTheDemoTableThroughSqlAndReportsLikeTheHeapDemo(String provider) throws Exception {
        // Directories named with every kind of character a URI escapes: the table and the spill go there.
        Path warehouse = dir.resolve("warehouse").resolve(UserPaths.everyKind());
        Path spill = Files.createDirectories(dir.resolve("spill").resolve(UserPaths.everyKind()));
        CliRun run = CliRun.of("demo", "--provider", provider, "--rows", "40000", "--keys", "8000", "--budget", "4m",
                "--value-bytes", "64", "--spill-dir", spill.toString(), "--warehouse", warehouse.toString(), "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        assertThat(json.get("warehouse").asText()).isEqualTo(warehouse.toString());
        assertThat(warehouse.resolve("demo.db").resolve("kv").resolve("snapshot")).isDirectory();
        UserPaths.onlyEntryOfItsParent(warehouse);
        UserPaths.onlyEntryOfItsParent(spill);
        CliRun heap = CliRun.of("demo", "--rows", "10", "--keys", "5", "--json");
        heap.json().fieldNames().forEachRemaining(key -> assertThat(json.has(key)).as("key " + key).isTrue());
        assertThat(json.get("provider").asText()).isEqualTo(provider);
        assertThat(json.get("verified").asBoolean()).as(json.get("mismatch").toString()).isTrue();
        assertThat(json.get("committed").asBoolean()).isTrue();
        assertThat(json.get("rowsWritten").asLong()).isEqualTo(40_000);
        assertThat(json.get("writes").asLong()).isEqualTo(1);
        assertThat(json.get("spillCount").asLong()).as("spills under a 4 MiB budget").isPositive();
        assertThat(json.get("peakReservedBytes").asLong()).isPositive().isLessThanOrEqualTo(4L << 20);
        assertThat(json.get("reservedAfterClose").asLong()).isZero();
        assertThat(json.get("engineUsedAfterClose").asLong()).isZero();
        assertThat(json.get("spillFilesLeft").asLong()).isZero();
    }

    @Test
    void aFlinkDemoCancelledMidWriteCommitsNothing() throws Exception {
        CliRun run = CliRun.of("demo", "--provider", "flink", "--rows", "2000000", "--keys", "50000", "--budget", "8m",
                "--cancel-after-rows", "20000", "--spill-dir", dir.toString(), "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        assertThat(json.get("cancelled").asBoolean()).isTrue();
        assertThat(json.get("committed").asBoolean()).isFalse();
        assertThat(json.get("verified").asBoolean()).as("the table is empty").isTrue();
        assertThat(json.get("rowsWritten").asLong()).isGreaterThanOrEqualTo(20_000).isLessThan(2_000_000);
        assertThat(json.get("reservedAfterClose").asLong()).isZero();
        assertThat(json.get("spillFilesLeft").asLong()).isZero();
    }

    @Test
    void optionsAnEngineDemoCannotHonourAreRefusedNamingThem() {
        CliRun timeline = CliRun.of("demo", "--provider", "flink", "--timeline", dir.resolve("t.svg").toString());
        assertThat(timeline.exitCode()).isEqualTo(2);
        assertThat(timeline.err()).contains("--timeline");
        CliRun cancel = CliRun.of("demo", "--provider", "spark", "--cancel-after-rows", "10");
        assertThat(cancel.exitCode()).isEqualTo(2);
        assertThat(cancel.err()).contains("--cancel-after-rows");
        // A Flink job commits after its last row: a cancel at --rows would race that commit.
        CliRun atTheEnd = CliRun.of("demo", "--provider", "flink", "--rows", "1000", "--cancel-after-rows", "1000");
        assertThat(atTheEnd.exitCode()).isEqualTo(2);
        assertThat(atTheEnd.err()).contains("--cancel-after-rows").contains("below --rows (1000)");
    }
}
