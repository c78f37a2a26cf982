package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.benchmarks.scale.ScaleCell;
import io.paimongov.benchmarks.scale.ScaleTable;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plain Paimon's "same settings" are what a governed write really sets on its table: for every
 * table kind and format of the scale grid, a governed write is opened and the options of the table
 * it writes are compared with the created table's; every option it changed, and nothing else, is in
 * {@link PlainSettings#sameAsGoverned}, beside the write buffer.
 */
class PlainSettingsTest {

    private static final long BUDGET = 64L << 20;

    @TempDir Path dir;

    @Test
    void plainGetsEveryOptionTheGovernedWriteSetsOnItsTable() throws Exception {
        int n = 0;
        for (ScaleTable kind : ScaleTable.values()) {
            for (String format : ScaleCell.FORMATS) {
                FileStoreTable table = new ScaleCell(kind, format, 8, 1_000, 16, BUDGET).create(dir.resolve("w" + n++));
                Map<String, String> changed = new HashMap<>();
                try (GovernedTableWrite write = BenchTables.governedWrite(table, "same-settings", BUDGET, dir, Map.of())) {
                    write.table().options().forEach((k, v) -> {
                        if (!Objects.equals(table.options().get(k), v)) {
                            changed.put(k, v);
                        }
                    });
                }
                Map<String, String> plain = new HashMap<>(PlainSettings.sameAsGoverned(table, BUDGET));
                assertThat(plain.remove("write-buffer-size")).isEqualTo(Long.toString(BUDGET));
                // The planner may restate an option the table already has; what counts is what the governed table ends up with.
                plain.entrySet().removeIf(e -> Objects.equals(table.options().get(e.getKey()), e.getValue()));
                assertThat(plain).as(kind.label() + " " + format).isEqualTo(changed).isNotEmpty();
            }
        }
    }

    @Test
    void theDefaultsLineGivesOnlyTheWriteBuffer() {
        assertThat(PlainSettings.defaults(BUDGET)).containsExactly(Map.entry("write-buffer-size", Long.toString(BUDGET)));
    }
}
