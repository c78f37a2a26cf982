package io.paimongov.offheap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.WriteCancelledException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's own Arrow allocator, passed in the environment, as the judge: it shows the write
 * while it runs, is back at zero after success, failure and cancel, and its limit bounds the write.
 */
class ArrowAllocatedMemoryTest {

    @TempDir Path dir;

    private RootAllocator engine;

    @AfterEach
    void engineClosesWithoutALeak() {
        if (engine != null) {
            assertThat(engine.getAllocatedMemory()).as("the engine allocator's memory after the write").isZero();
            assertThatCode(engine::close).as("closing the engine allocator (Arrow's leak check)").doesNotThrowAnyException();
        }
    }

    private EngineEnvironment environment(long limit) {
        engine = new RootAllocator(limit);
        return EngineEnvironment.builder().with(BufferAllocator.class, engine).build();
    }

    private Workload workload(long seed) {
        return Workload.random(seed, Writes.ROWS, Writes.ROWS / 2, 2, 64);
    }

    @Test
    void whileTheWriteRunsArrowCountsExactlyWhatTheBudgetHoldsAndAfterSuccessNothing() throws Exception {
        Writes h = new Writes(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        Workload w = workload(41);
        long samples = 0;
        try (GovernedTableWrite write = h.batch(table, h.options("offheap", "3m", "governance.memory.page-size", "16k"),
                environment(Long.MAX_VALUE))) {
            for (int i = 0; i < w.rows().size(); i++) {
                write.write(w.rows().get(i));
                if (i % 1000 == 0) {
                    // Pages (used and cached) and estimate reservations, as the write's budget holds them.
                    assertThat(engine.getAllocatedMemory()).isEqualTo(h.context.snapshot().reservedBytes());
                    samples++;
                }
            }
            write.prepareCommit().commit();
        }
        assertThat(samples).isPositive();
        assertThat(engine.getPeakMemoryAllocation()).isEqualTo(h.context.snapshot().peakReservedBytes());
        assertThat(h.context.snapshot().spillBytes()).isPositive();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    @Test
    void afterAFailureInjectedByARowWithANullKeyNothingIsLeft() throws Exception {
        Writes h = new Writes(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        List<InternalRow> rows = new ArrayList<>(workload(43).rows());
        rows.add(rows.size() / 2, GenericRow.of(1, null, BinaryString.fromString("no key")));
        GovernedTableWrite write = h.batch(table, h.options("offheap", "2m", "governance.memory.page-size", "16k"),
                environment(Long.MAX_VALUE));
        assertThatThrownBy(() -> {
                    for (InternalRow row : rows) {
                        write.write(row);
                    }
                    write.prepareCommit().commit();
                })
                .hasMessage("field 'k' (INT NOT NULL) of table 't' is null");
        write.close();
        assertThat(engine.getPeakMemoryAllocation()).as("the write held engine memory before it failed").isPositive();
        assertThat(h.context.snapshot().reservedBytes()).isZero();
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
        assertThat(h.spillScopes()).isEmpty();
    }

    @Test
    void afterACancelFromAnotherThreadNothingIsLeft() throws Exception {
        Writes h = new Writes(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        Workload w = workload(47);
        int cancelAt = w.rows().size() / 2;
        GovernedTableWrite write = h.batch(table, h.options("offheap", "2m", "governance.memory.page-size", "16k"),
                environment(Long.MAX_VALUE));
        int written = 0;
        long heldAtCancel = -1;
        try {
            for (InternalRow row : w.rows()) {
                if (written == cancelAt) {
                    // Another thread cancels between two rows and is done before the writer goes on,
                    // so the cancel lands mid-write however the threads are scheduled.
                    heldAtCancel = engine.getAllocatedMemory();
                    Thread canceller = new Thread(() -> write.cancel("test: cancel mid-write"));
                    canceller.start();
                    canceller.join();
                }
                write.write(row);
                written++;
            }
            write.prepareCommit().commit();
            throw new AssertionError("the write went on after the cancel and committed");
        } catch (WriteCancelledException e) {
            assertThat(e).hasMessage("write cancelled: test: cancel mid-write");
        } finally {
            write.close();
        }
        assertThat(heldAtCancel).as("Arrow memory the write held when it was cancelled").isPositive();
        assertThat(written).as("no row was accepted after the cancel").isEqualTo(cancelAt);
        assertThat(h.context.snapshot().cancellations()).isEqualTo(1);
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
        assertThat(h.spillScopes()).isEmpty();
    }

    /**
     * The engine's memory may run short after the open: another consumer takes most of the engine's
     * allocator while the write runs. The engine then refuses pages, and the write spills within
     * what is left (ALLOC.3) and still commits the model's rows.
     */
    @Test
    void whenTheEnginesAllocatorRunsShortAfterTheOpenTheWriteSpillsWithinWhatIsLeft() throws Exception {
        long engineLimit = 8 << 20;
        long taken = 5 << 20;
        Writes h = new Writes(dir);
        // Small format buffers and merge fan-in keep the write's fixed estimates well inside the
        // 3m the other consumer leaves, so the write runs and the engine's refusals make it spill.
        FileStoreTable table =
                TestTables.createTable(dir.resolve("wh"), "t",
                        Map.of("bucket", "4", "file.format", "parquet", "file.block-size", "64k",
                                "local-sort.max-num-file-handles", "4"),
                        true);
        Workload w = workload(53);
        try (GovernedTableWrite write = h.batch(table, h.options("offheap", "8m", "governance.memory.page-size", "16k"),
                        environment(engineLimit));
                // Arrow rounds a buffer up to a power of two: 4m + 1m is the 5m taken.
                ArrowBuf large = engine.buffer(4 << 20);
                ArrowBuf small = engine.buffer(1 << 20)) {
            assertThat(large.capacity() + small.capacity()).isEqualTo(taken);
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }

        assertThat(engine.getPeakMemoryAllocation()).isPositive().isLessThanOrEqualTo(engineLimit);
        assertThat(h.context.snapshot().spillBytes()).as("held to the engine's 3m left, the write spilled").isPositive();
        assertThat(h.context.snapshot().bufferFullCount()).as("pages the engine refused").isPositive();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    /** PROV.7: a budget above the engine allocator's limit is refused at open, naming both, and nothing is taken. */
    @Test
    void aBudgetAboveTheEnginesAllocatorLimitIsRefusedAtOpenAndLeavesNothing() throws Exception {
        Writes h = new Writes(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        EngineEnvironment env = environment(3 << 20);
        assertThatThrownBy(() -> h.batch(table, h.options("offheap", "8m", "governance.memory.page-size", "16k"), env))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'governance.memory.budget' = " + (8 << 20) + " bytes")
                .hasMessageContaining("limited to " + (3 << 20) + " bytes");
        assertThat(engine.getPeakMemoryAllocation()).as("nothing taken from the engine").isZero();
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
        assertThat(h.spillScopes()).isEmpty();
        // The same budget under an engine that can hold it opens.
        engine.close();
        EngineEnvironment larger = environment(8 << 20);
        h.batch(table, h.options("offheap", "8m", "governance.memory.page-size", "16k"), larger).close();
    }
}
