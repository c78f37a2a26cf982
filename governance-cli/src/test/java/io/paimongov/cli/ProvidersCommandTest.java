package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class ProvidersCommandTest {

    @Test
    void jsonListsTheHeapOffheapAndSparkProvidersWithTheirClasses() throws Exception {
        CliRun run = CliRun.of("providers", "--json");

        assertThat(run.exitCode()).isZero();
        JsonNode providers = run.json().get("providers");
        assertThat(providers.size()).isEqualTo(3);
        assertThat(providers.get(0).get("name").asText()).isEqualTo("heap");
        assertThat(providers.get(0).get("class").asText()).isEqualTo("io.paimongov.heap.HeapGovernanceProvider");
        assertThat(providers.get(1).get("name").asText()).isEqualTo("offheap");
        assertThat(providers.get(1).get("class").asText()).isEqualTo("io.paimongov.offheap.OffheapGovernanceProvider");
        assertThat(providers.get(2).get("name").asText()).isEqualTo("spark");
        assertThat(providers.get(2).get("class").asText()).isEqualTo("io.paimongov.spark.SparkGovernanceProvider");
    }

    @Test
    void textListsNameAndClass() {
        CliRun run = CliRun.of("providers");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("heap").contains("io.paimongov.heap.HeapGovernanceProvider")
                .contains("offheap").contains("io.paimongov.offheap.OffheapGovernanceProvider")
                .contains("spark").contains("io.paimongov.spark.SparkGovernanceProvider");
    }
}
