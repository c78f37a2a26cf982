package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator.AllocatorContractException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Injected failures on real tables: each leaves no spill file, no reservation, no snapshot. */
class HeapFailureTest {

    @TempDir Path dir;

    private Workload workload() {
        return Workload.random(31, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
    }

    private static void writeAll(GovernedTableWrite write, Workload w) throws Exception {
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
        write.prepareCommit().commit();
    }

    @Test
    void theAllocatorThrowing() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        h.provider.failAllocation(40);
        GovernedTableWrite write = h.batch(table, h.options("4m", "governance.memory.page-size", "16k"));
        assertThatThrownBy(() -> writeAll(write, workload()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("injected: the allocator failed");
        write.close();
        h.assertNothingLeft(table);
        assertThatThrownBy(() -> write.write(workload().rows().get(0)))
                .isInstanceOf(GovernanceClosedException.class)
                .hasMessage("cannot write: the write is closed");
    }

    /**
     * An allocator whose pages are larger than its page size: Paimon would write its rows by the
     * page's own size and commit them; the write fails with the allocator named and commits
     * nothing.
     */
    @Test
    void theAllocatorHandingOutPagesOfTheWrongSize() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        h.provider.oversizeAllocation(40);
        GovernedTableWrite write = h.batch(table, h.options("4m", "governance.memory.page-size", "16k"));
        assertThatThrownBy(() -> writeAll(write, workload()))
                .isInstanceOfSatisfying(AllocatorContractException.class, e -> assertThat(e.clause()).isEqualTo("ALLOC.4"))
                .hasMessageContaining("broke ALLOC.4 of docs/spi.md: a page of 32768 bytes; pageSize() is 16384");
        assertThat(h.provider.allocations()).isGreaterThanOrEqualTo(40);
        write.close();
        h.assertNothingLeft(table);
    }

    @Test
    void spillFileCreationFailing() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        List<InternalRow> rows = workload().rows();
        // Rows until the first spill made the scope...
        Path scope = h.context.spillScopeDir();
        int written = 0;
        while (!Files.exists(scope)) {
            write.write(rows.get(written++));
        }
        // ...then the scope directory disappears under the write: creating a spill file fails with an I/O error.
        try (Stream<Path> files = Files.walk(scope)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
        List<InternalRow> rest = rows.subList(written, rows.size());
        assertThatThrownBy(() -> {
            for (InternalRow row : rest) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }).hasStackTraceContaining("FileNotFoundException");
        write.close();
        h.assertNothingLeft(table);
    }

    /**
     * The spill root passes the check at open and is gone by the first spill, which makes the
     * scope: the spill fails naming the option, and the write leaves nothing.
     */
    @Test
    void theSpillRootGoneByTheFirstSpill() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        Files.delete(h.spillRoot);
        assertThatThrownBy(() -> writeAll(write, workload()))
                .hasStackTraceContaining("no spill root can hold a spill scope; check 'governance.spill.dirs' (or the engine's temp dirs): "
                        + h.spillRoot);
        write.close();
        Files.createDirectory(h.spillRoot);
        h.assertNothingLeft(table);
    }

    @Test
    void theSpillByteBudgetBeingExceeded() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        GovernedTableWrite write =
                h.batch(
                        table,
                        h.options("2m", "governance.memory.page-size", "16k", "governance.spill.max-bytes", "1m"));
        Workload w = Workload.random(33, Math.max(WriteHarness.ROWS, 60_000), 60_000, 1, 128);
        assertThatThrownBy(() -> writeAll(write, w))
                .isInstanceOfSatisfying(
                        ResourceExhaustedException.class,
                        e -> {
                            assertThat(e.resource()).isEqualTo(ResourceExhaustedException.Resource.SPILL_DISK);
                            assertThat(e.capacityBytes()).isEqualTo(1 << 20);
                            assertThat(e.reservedBytes()).isLessThanOrEqualTo(1 << 20);
                        });
        write.close();
        assertThat(h.context.snapshot().spillBytes()).isPositive();
        h.assertNothingLeft(table);
    }
}
