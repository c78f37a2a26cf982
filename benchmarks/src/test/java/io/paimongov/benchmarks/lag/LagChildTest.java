package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plain Paimon's matched options against what a governed write of the same table and budget sets itself. */
class LagChildTest {

    @TempDir Path dir;

    @Test
    void plainGetsEveryOptionTheGovernedWriteSetsAndTheBudgetAsItsBuffer() throws Exception {
        long budget = 64L << 20;
        FileStoreTable table = LagTable.create(dir.resolve("warehouse"));
        java.nio.file.Files.createDirectories(dir.resolve("spill"));
        Map<String, String> governance = Map.of(GovernanceOptions.MEMORY_BUDGET, Long.toString(budget),
                GovernanceOptions.SPILL_DIRS, dir.resolve("spill").toString());
        Map<String, String> matched = LagChild.matchedOptions(table, budget, governance);
        Map<String, String> set;
        try (GovernedTableWrite write = BenchTables.governedWrite(table, "matched", budget, dir.resolve("spill"), Map.of())) {
            set = write.footprint().tableOptions();
            // The table the governed write writes carries them too.
            assertThat(write.table().options()).containsAllEntriesOf(set);
        }
        assertThat(set).isNotEmpty().containsKey("lookup.cache-max-memory-size");
        assertThat(matched).containsAllEntriesOf(set).containsEntry("write-buffer-size", Long.toString(budget));
        assertThat(matched).hasSize(set.size() + 1);
    }

    @Test
    void onlyTheThreadSettingsAreGoverned() {
        assertThat(LagChild.governed("1")).isTrue();
        assertThat(LagChild.governed("-1")).isTrue();
        assertThat(LagChild.governed(LagChild.PLAIN)).isFalse();
        assertThat(LagChild.governed(LagChild.PLAIN_DEFAULTS)).isFalse();
    }
}
