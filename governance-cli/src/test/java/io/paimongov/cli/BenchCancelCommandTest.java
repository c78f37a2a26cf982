package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench cancel} end to end at the hidden test size, Spark only (the benchmarks module's
 * JobCancelBenchTest runs both engines): stdout is exactly the JSON object with the keys docs/cli.md
 * lists, the governed jobs left nothing behind, progress goes to stderr, and bad options are usage
 * errors naming the option. No assertion depends on how fast the machine is.
 */
class BenchCancelCommandTest {

    /** The keys docs/cli.md documents for one engine, after the engine's prefix; the memory check's name differs. */
    static List<String> engineKeys(String engine, String memoryBytes, String memoryBack) {
        List<String> keys = new ArrayList<>();
        for (String k : new String[] {"CancelRatioP50", "CancelRatioP90", "CancelP50Millis", "CancelP90Millis", "CancelMaxMillis",
                "JobEndP50Millis", "JobEndP90Millis", "JobEndMaxMillis", "CancelMillis", "JobEndMillis", "RowsAtCancel", "Tasks",
                "TasksCancelled", "Pairs", "Rows", "CancelAfterRows", memoryBytes}) {
            keys.add(engine + k);
        }
        for (String side : new String[] {"Governed", "Paimon"}) {
            for (String k : new String[] {"NoSnapshot", "NoSpillScope", memoryBack, "NoDataFiles", "LeftNothing"}) {
                keys.add(engine + side + k);
            }
        }
        return keys;
    }

    @TempDir Path dir;

    @Test
    void tinySparkRunAsDocumentedJson() throws Exception {
        Path work = dir.resolve("work");
        CliRun run = CliRun.of("bench", "cancel", "--tiny", "--json", "--engines", "spark", "--work-dir", work.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        List<String> keys = new ArrayList<>(List.of("quick", "cores", "loadAverage", "elapsedMillis"));
        keys.addAll(engineKeys("spark", "MemoryBytes", "TaskMemoryBack"));
        for (String key : keys) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.size()).as("undocumented keys in " + json).isEqualTo(keys.size());
        assertThat(json.get("sparkCancelRatioP50").isNumber()).isTrue();
        assertThat(json.get("sparkCancelP50Millis").get("governed").isNumber()).isTrue();
        assertThat(json.get("sparkCancelMillis").get("paimon")).hasSize(1);
        assertThat(json.get("sparkGovernedLeftNothing").asBoolean()).as(json.toString()).isTrue();
        assertThat(json.get("sparkTasksCancelled").get("governed").asInt()).isEqualTo(json.get("sparkTasks").get("governed").asInt());
        assertThat(run.err()).contains("bench cancel: [").contains("spark pair 1/1: ");
        assertThat(work.toFile().list()).as("what the children left in the work dir").containsOnly("spark");
    }

    @Test
    void badOptionsAreUsageErrorsNamingTheOption() {
        CliRun engine = CliRun.of("bench", "cancel", "--engines", "hive");
        assertThat(engine.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(engine.err()).contains("--engines").contains("hive");

        CliRun rows = CliRun.of("bench", "cancel", "--rows", "1000", "--cancel-after-rows", "1000");
        assertThat(rows.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(rows.err()).contains("--cancel-after-rows");

        CliRun pairs = CliRun.of("bench", "cancel", "--pairs", "0");
        assertThat(pairs.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(pairs.err()).contains("--pairs");
    }
}
