package io.paimongov.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.memory.SharedMemory;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several governed writes on one Flink memory manager, sharing it through one {@link SharedMemory}
 * as the writers of a slot do, on real primary-key tables: the first write borrows while the
 * others are idle, and gives back when they write. One thread drives them all, so a borrower is
 * always idle when another write asks and gives back on the asking thread (its reclaimer gets its
 * call lock). The memory they hold is read from Flink's manager, not from the writes' accounting;
 * the manager is larger than the pool, so the pool is a bound Flink alone would not enforce.
 */
class FlinkSharedMemoryWriteTest {

    private static final int PAGE = 32 << 10;
    private static final long SHARE = 2L << 20;
    private static final int WRITES = 4;
    /** Memory the writes' pool does not cover: another consumer's fraction of the slot. */
    private static final long OTHERS = 8L << 20;
    /** About 5 MB in the heavy write's buffer, more than twice its share; a light write's quarter of it needs most of its share. */
    private static final int HEAVY_ROWS = 40_000;

    @TempDir Path dir;

    private final MemoryManager manager = MemoryManager.create(WRITES * SHARE + OTHERS, PAGE);
    private final SharedMemory slot = SharedMemory.of("test slot", manager.getMemorySize());
    private final List<GovernedTableWrite> writes = new ArrayList<>();
    private long mostFlinkUsed;

    /** What Flink's manager has handed out now, to every consumer. */
    private long flinkUsed() {
        return manager.getMemorySize() - manager.availableMemory();
    }

    @AfterEach
    void close() throws Exception {
        for (GovernedTableWrite w : writes) {
            w.close();
        }
        manager.verifyEmpty();
        manager.shutdown();
    }

    private GovernedTableWrite open(String name, String sharing) throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), name, 1, "avro");
        Path spill = Files.createDirectories(dir.resolve("spill"));
        EngineEnvironment env = EngineEnvironment.builder()
                .with(MemoryManager.class, manager)
                .with(FlinkSlot.class, new FlinkSlot(manager.getMemorySize(), List.of(spill)))
                .with(SharedMemory.class, slot)
                .build();
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, Long.toString(SHARE),
                GovernanceOptions.PAGE_SIZE, Integer.toString(PAGE),
                GovernanceOptions.MEMORY_SHARING, sharing));
        GovernedTableWrite write = GovernedTableWrite.batch(table, ResourceContext.open(name, new FlinkGovernanceProvider(), options, env));
        writes.add(write);
        return write;
    }

    /** Writes {@code rows}, reading after each row what Flink's manager has handed out. */
    private void write(GovernedTableWrite write, List<InternalRow> rows) throws Exception {
        for (InternalRow row : rows) {
            write.write(row);
            mostFlinkUsed = Math.max(mostFlinkUsed, flinkUsed());
        }
    }

    @Test
    void aWriteBorrowsWhileTheOthersAreIdleAndGivesBackWhenTheyWrite() throws Exception {
        List<GovernedTableWrite> light = new ArrayList<>();
        for (int i = 1; i < WRITES; i++) {
            light.add(open("light" + i, "fair"));
        }
        // The idle writes hold their fixed reservations and nothing more until they write.
        long idle = flinkUsed();
        GovernedTableWrite heavy = open("heavy", "fair");
        Workload heavyRows = Workload.random(1, HEAVY_ROWS, HEAVY_ROWS / 2, 1, 96);

        write(heavy, heavyRows.rows());

        MetricsSnapshot borrowing = heavy.metrics();
        assertThat(borrowing.shareBytes()).isEqualTo(SHARE);
        assertThat(borrowing.peakBorrowedBytes()).as("the heavy write borrowed from the idle ones").isPositive();
        assertThat(borrowing.budgetBytes()).isGreaterThan(SHARE);
        assertThat(mostFlinkUsed - idle).as("Flink handed the heavy write more than its share").isGreaterThan(SHARE);

        List<Workload> lightRows = new ArrayList<>();
        for (int i = 0; i < light.size(); i++) {
            Workload w = Workload.random(10 + i, HEAVY_ROWS / 4, HEAVY_ROWS / 8, 1, 96);
            lightRows.add(w);
            write(light.get(i), w.rows());
        }

        MetricsSnapshot reclaimed = heavy.metrics();
        assertThat(reclaimed.reclaimedFromCount()).as("the light writes took their shares back").isPositive();
        long takenBack = 0;
        for (GovernedTableWrite w : light) {
            assertThat(w.metrics().shareBytes()).isEqualTo(SHARE);
            takenBack += w.metrics().reclaimedByBytes();
        }
        assertThat(takenBack).isEqualTo(reclaimed.reclaimedFromBytes());
        assertThat(mostFlinkUsed).as("Flink never handed the writes more than their shares together")
                .isLessThanOrEqualTo(WRITES * SHARE);

        heavy.prepareCommit().commit();
        for (GovernedTableWrite w : light) {
            w.prepareCommit().commit();
        }
        assertThat(TestTables.read(heavy.table())).isEqualTo(heavyRows.expected());
        for (int i = 0; i < light.size(); i++) {
            assertThat(TestTables.read(light.get(i).table())).isEqualTo(lightRows.get(i).expected());
        }
    }

    @Test
    void withoutSharingEachWriteKeepsItsShare() throws Exception {
        open("idle", "none");
        long idle = flinkUsed();
        GovernedTableWrite heavy = open("heavy", "none");
        Workload heavyRows = Workload.random(1, HEAVY_ROWS, HEAVY_ROWS / 2, 1, 96);

        write(heavy, heavyRows.rows());

        MetricsSnapshot m = heavy.metrics();
        assertThat(m.budgetBytes()).isEqualTo(SHARE);
        assertThat(m.shareBytes()).isEqualTo(SHARE);
        assertThat(m.peakBorrowedBytes()).isZero();
        assertThat(m.spillCount()).as("held to its share, it spilled").isPositive();
        assertThat(mostFlinkUsed - idle).as("Flink never handed the heavy write more than its share").isLessThanOrEqualTo(SHARE);
        assertThat(slot.memberCount()).as("a write with sharing 'none' does not join").isZero();
        heavy.prepareCommit().commit();
        assertThat(TestTables.read(heavy.table())).isEqualTo(heavyRows.expected());
    }
}
