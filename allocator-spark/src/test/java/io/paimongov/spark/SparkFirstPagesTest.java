package io.paimongov.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.memory.TaskMemoryManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer gets its first pages from Spark before Paimon creates it: when another consumer of the
 * task holds the memory and will not spill, the write fails with a typed error naming the writer,
 * instead of a Paimon writer failing without its first page; when the write's own writers can
 * flush, the new writer is made room for.
 */
class SparkFirstPagesTest {

    private static final long ENGINE = 8 << 20;
    private static final int PAGE = 64 << 10;

    @TempDir Path dir;

    @Test
    void aNewWriterWhoseFirstPagesSparkCannotGrantFailsTypedAndGivesEverythingBack() throws Exception {
        try (Scene s = new Scene(dir)) {
            s.otherLeavesRoomForTheEstimateAndOnePage();

            assertThatThrownBy(() -> s.write.write(GenericRow.of(1, 1, BinaryString.fromString("a"))))
                    .isInstanceOf(ResourceExhaustedException.class)
                    .hasMessageContaining("first pages")
                    .hasMessageContaining("bucket=");
            s.write.close();

            assertThat(s.engine.engineUsedBytes()).isEqualTo(s.other.getUsed());
            s.other.freeMemory(s.other.getUsed());
            assertThat(s.engine.engineUsedBytes()).isZero();
            assertThat(TestTables.read(s.table)).isEmpty();
        }
    }

    @Test
    void aNewWriterGetsItsFirstPagesByFlushingTheWritesOwnWriters() throws Exception {
        try (Scene s = new Scene(dir)) {
            int k = 0;
            while (k < 100_000 && (k % 1000 != 0 || s.write.metrics().pageBytes() < 8 * PAGE)) {
                s.write.write(GenericRow.of(1, k, BinaryString.fromString("value-" + k)));
                k++;
            }
            assertThat(s.write.metrics().pageBytes()).as("the first writer's pages").isGreaterThanOrEqualTo(8 * PAGE);
            s.otherLeavesRoomForTheEstimateAndOnePage();

            s.write.write(GenericRow.of(2, 0, BinaryString.fromString("new partition")));
            s.write.prepareCommit().commit();
            s.write.close();

            assertThat(TestTables.read(s.table)).hasSize(k + 1).containsEntry(List.of(2, 0), "new partition");
            assertThat(s.engine.engineUsedBytes()).isEqualTo(s.other.getUsed());
            s.other.freeMemory(s.other.getUsed());
        }
    }

    /** A 2-bucket table, a Spark engine of {@link #ENGINE}, another consumer that never spills, and a 4m write. */
    private static final class Scene implements AutoCloseable {
        final FileStoreTable table;
        final SparkStandaloneEngine engine;
        final StubbornConsumer other;
        final GovernedTableWrite write;

        Scene(Path dir) throws Exception {
            table = TestTables.primaryKeyTable(dir.resolve("warehouse"), "t", 2, "parquet");
            engine = new SparkStandaloneEngine(ENGINE, dir.resolve("engine"));
            other = new StubbornConsumer(engine.environment().find(TaskMemoryManager.class).orElseThrow());
            write = GovernedTableWrite.batch(table, open(engine, "4m"));
        }

        /** Room for the writer's estimate and one page, not the three a Paimon writer needs. */
        void otherLeavesRoomForTheEstimateAndOnePage() {
            other.acquireMemory(ENGINE - engine.engineUsedBytes() - write.footprint().perWriterBytes() - PAGE);
        }

        @Override
        public void close() {
            engine.close();
        }
    }

    private static ResourceContext open(SparkStandaloneEngine engine, String budget) {
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, budget, GovernanceOptions.PAGE_SIZE, String.valueOf(PAGE)));
        return ResourceContext.open("first-pages", new SparkGovernanceProvider(), options, engine.environment());
    }
}
