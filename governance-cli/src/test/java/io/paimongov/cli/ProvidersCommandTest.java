package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProvidersCommandTest {

    @Test
    void jsonListsEveryProviderWithItsClass() throws Exception {
        CliRun run = CliRun.of("providers", "--json");

        assertThat(run.exitCode()).isZero();
        Map<String, String> classes = new HashMap<>();
        for (JsonNode provider : run.json().get("providers")) {
            classes.put(provider.get("name").asText(), provider.get("class").asText());
        }
        assertThat(classes)
                .containsEntry("heap", "io.paimongov.heap.HeapGovernanceProvider")
                .containsEntry("offheap", "io.paimongov.offheap.OffheapGovernanceProvider")
                .containsEntry("flink", "io.paimongov.flink.FlinkGovernanceProvider")
                .containsEntry("spark", "io.paimongov.spark.SparkGovernanceProvider")
                .containsEntry("native", "io.paimongov.nativehost.NativeGovernanceProvider")
                .hasSize(5);
    }

    @Test
    void textListsNameAndClass() {
        CliRun run = CliRun.of("providers");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("heap").contains("io.paimongov.heap.HeapGovernanceProvider")
                .contains("offheap").contains("io.paimongov.offheap.OffheapGovernanceProvider")
                .contains("flink").contains("io.paimongov.flink.FlinkGovernanceProvider")
                .contains("spark").contains("io.paimongov.spark.SparkGovernanceProvider")
                .contains("native").contains("io.paimongov.nativehost.NativeGovernanceProvider");
    }
}
