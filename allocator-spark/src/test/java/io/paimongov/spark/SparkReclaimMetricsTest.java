package io.paimongov.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.memory.TaskMemoryManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-memory metrics of a Spark write: Spark's memory manager, not a shared memory of the
 * runtime, arbitrates between the consumers of a task, so the write's share is its own budget and
 * it borrows nothing; when another consumer of the task needs memory and Spark makes the write
 * spill for it, that is memory reclaimed from the write, counted with what the write gave back.
 * Spark's own count of what the consumer gave back is the expected value.
 */
class SparkReclaimMetricsTest {

    private static final long ENGINE = 8 << 20;
    private static final int PAGE = 64 << 10;

    @TempDir Path dir;

    @Test
    void sparkAskingTheWriteForMemoryIsCountedAsReclaimedFromIt() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("warehouse"), "t", 1, "parquet");
        try (SparkStandaloneEngine engine = new SparkStandaloneEngine(ENGINE, dir.resolve("engine"))) {
            TaskMemoryManager tmm = engine.environment().find(TaskMemoryManager.class).orElseThrow();
            GovernanceOptions options = GovernanceOptions.of(Map.of(
                    GovernanceOptions.MEMORY_BUDGET, "4m", GovernanceOptions.PAGE_SIZE, String.valueOf(PAGE)));
            GovernedTableWrite write = GovernedTableWrite.batch(
                    table, ResourceContext.open("reclaimed", new SparkGovernanceProvider(), options, engine.environment()));
            int k = 0;
            while (write.metrics().pageBytes() < 16 * PAGE) {
                write.write(GenericRow.of(1, k, BinaryString.fromString("value-" + k)));
                k++;
            }
            assertThat(write.metrics().reclaimedFromCount()).isZero();

            // Another consumer of the task takes more than Spark has free: Spark makes the idle write spill.
            StubbornConsumer other = new StubbornConsumer(tmm);
            long writeBefore = engine.engineUsedBytes();
            long wanted = ENGINE - writeBefore + 8 * PAGE;
            long granted = other.acquireMemory(wanted);
            long gaveBack = writeBefore - (engine.engineUsedBytes() - other.getUsed());

            MetricsSnapshot m = write.metrics();
            assertThat(granted).as("Spark granted it by making the write give memory back").isEqualTo(wanted);
            assertThat(gaveBack).isGreaterThanOrEqualTo(8L * PAGE);
            assertThat(m.reclaimedFromCount()).isPositive();
            assertThat(m.reclaimedFromBytes()).as("what Spark counts the write gave back").isEqualTo(gaveBack);
            assertThat(m.shareBytes()).isEqualTo(m.budgetBytes()).isEqualTo(4L << 20);
            assertThat(m.borrowedBytes()).isZero();
            assertThat(m.peakBorrowedBytes()).isZero();
            assertThat(m.reclaimedByCount()).isZero();

            other.freeMemory(other.getUsed());
            write.prepareCommit().commit();
            write.close();
            assertThat(TestTables.read(table)).hasSize(k);
            assertThat(engine.engineUsedBytes()).isZero();
        }
    }
}
