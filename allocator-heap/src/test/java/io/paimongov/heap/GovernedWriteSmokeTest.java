package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.spi.write.GovernedTableWrite;
import io.paimongov.spi.write.ResourceContext;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GovernedWriteSmokeTest {

    @TempDir Path dir;

    @Test
    void smallBudgetWriteSpillsAndReadsBack() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        TestTables.Workload w = TestTables.Workload.random(1, 200_000, 50_000, 2, 64);
        GovernanceOptions options =
                GovernanceOptions.of(Map.of(
                        GovernanceOptions.MEMORY_BUDGET, "8m",
                        GovernanceOptions.SPILL_DIRS, dir.toString()));
        ResourceContext ctx = ResourceContext.open("smoke", new HeapGovernanceProvider(), options, EngineEnvironment.standalone());
        MetricsSnapshot m;
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, ctx)) {
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            write.prepareCommit().commit();
            m = write.metrics();
            System.out.println(m);
        }
        System.out.println(ctx.snapshot());
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(ctx.snapshot().reservedBytes()).isZero();
        assertThat(ctx.snapshot().peakReservedBytes()).isLessThanOrEqualTo(8 << 20);
    }
}
