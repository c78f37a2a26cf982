package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The governed write on real Paimon tables with the heap allocator. */
class HeapGovernedWriteTest {

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"parquet", "orc", "avro"})
    void aSpilledWriteAndAnInMemoryWriteGiveTheSameTable(String format) throws Exception {
        Workload w = Workload.random(format.hashCode(), WriteHarness.ROWS, WriteHarness.ROWS / 4, 3, 48);

        WriteHarness spilled = new WriteHarness(dir.resolve("spilled"));
        FileStoreTable small = TestTables.primaryKeyTable(spilled.root.resolve("wh"), "t", 4, format);
        // 6m: the least in which 12 ORC writers (measured 54 KB each after a flush) fit next to the
        // table's fixed reservations, among them a compaction task of 6 ORC readers at the
        // measured 370 KB each, when the shared sort has no room for its spill channels.
        spilled.writeAndCommit(small, spilled.options("6m", "governance.memory.page-size", "16k"), w.rows());
        MetricsSnapshot spilledMetrics = spilled.context.snapshot();

        WriteHarness inMemory = new WriteHarness(dir.resolve("memory"));
        FileStoreTable large = TestTables.primaryKeyTable(inMemory.root.resolve("wh"), "t", 4, format);
        inMemory.writeAndCommit(large, inMemory.options("256m"), w.rows());
        MetricsSnapshot memoryMetrics = inMemory.context.snapshot();

        assertThat(spilledMetrics.spillBytes()).as("the small budget spilled").isPositive();
        assertThat(memoryMetrics.spillBytes()).as("the large budget did not spill").isZero();
        Map<List<Integer>, String> spilledContent = TestTables.read(small);
        assertThat(spilledContent).isEqualTo(TestTables.read(large)).isEqualTo(w.expected());
        assertThat(spilledMetrics.peakReservedBytes()).isLessThanOrEqualTo(6 << 20);
        assertThat(spilled.spillScopes()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"2m", "4m", "12m"})
    void theAccountedPeakNeverPassesTheBudget(String budget) throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 16, "parquet");
        Workload w = Workload.random(7, WriteHarness.ROWS, WriteHarness.ROWS, 2, 64);
        h.writeAndCommit(table, h.options(budget, "governance.memory.page-size", "8k"), w.rows());

        MetricsSnapshot m = h.context.snapshot();
        h.assertPeakWithin(budget, m);
        assertThat(m.reservedBytes()).isZero();
        assertThat(h.provider.lastOpened().usedAtClose()).isZero();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    @Test
    void aBudgetTooSmallForTheTableFailsAtOpenAndNamesTheKey() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        assertThatThrownBy(() -> h.batch(table, h.options("512k")))
                .isInstanceOfSatisfying(
                        ResourceExhaustedException.class,
                        e -> {
                            assertThat(e.capacityBytes()).isEqualTo(512 << 10);
                            // Checked before anything is reserved: the parts are in the request, not among holders.
                            assertThat(e.requester()).startsWith("this table's minimum: flush file writer ")
                                    .contains(" + spill I/O buffers ", " + compaction (one task) ", " + first writer and its 3 pages ");
                            assertThat(e.requestedBytes()).isGreaterThan(512 << 10);
                        })
                .hasMessageContaining("raise 'governance.memory.budget'");
        h.assertNothingLeft(table);
    }

    @Test
    void moreWritersThanTheBudgetCanHoldGoThroughTheSharedSort() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 64, "parquet");
        Workload w = Workload.random(19, 20_000, 20_000, 2, 16);
        h.writeAndCommit(table, h.options("2m", "governance.memory.page-size", "8k"), w.rows());
        MetricsSnapshot m = h.context.snapshot();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(m.sortedRows()).isPositive();
        h.assertPeakWithin("2m", m);
    }

    @Test
    void withoutTheSharedSortMoreWritersThanTheBudgetCanHoldFailWithTheHoldersAndLeaveNothing() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 64, "parquet");
        Workload w = Workload.random(19, 20_000, 20_000, 2, 16);
        assertThatThrownBy(() -> h.writeAndCommit(
                        table, h.options("2m", "governance.memory.page-size", "8k", "governance.write.shared-sort", "false"),
                        w.rows()))
                .isInstanceOfSatisfying(
                        ResourceExhaustedException.class,
                        e -> {
                            assertThat(e.requester()).matches("writer\\[partition=\\d+, bucket=\\d+\\] \\(writers open: .*");
                            assertThat(e.largestHolders()).extracting(ResourceExhaustedException.Holder::name)
                                    .contains("flush file writer");
                        });
        assertThat(h.context.snapshot().resourceExhaustedCount()).isEqualTo(1);
        h.assertNothingLeft(table);
    }

    @Test
    void metricsAgreeWithTheCommitMessages() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        Workload w = Workload.random(3, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 32);
        long files = 0;
        long bytes = 0;
        try (GovernedTableWrite write = h.batchWriting(table, h.options("2m", "governance.memory.page-size", "16k"), w.rows())) {
            PreparedCommit prepared = write.prepareCommit();
            for (CommitMessage m : prepared.messages()) {
                CommitMessageImpl impl = (CommitMessageImpl) m;
                for (DataFileMeta f : impl.newFilesIncrement().newFiles()) {
                    files++;
                    bytes += f.fileSize();
                }
                for (DataFileMeta f : impl.compactIncrement().compactAfter()) {
                    files++;
                    bytes += f.fileSize();
                }
            }
            prepared.commit();
            MetricsSnapshot m = write.metrics();
            assertThat(m.inputRows()).isEqualTo(w.rows().size());
            assertThat(m.inputBytes()).isGreaterThan(w.rows().size() * 16L);
            assertThat(m.outputFiles()).isEqualTo(files).isPositive();
            assertThat(m.outputBytes()).isEqualTo(bytes);
            assertThat(m.flushCount()).isPositive();
            assertThat(m.spillFiles()).isPositive();
            assertThat(m.spillCount()).isPositive().isLessThanOrEqualTo(m.spillFiles());
            assertThat(m.spillBytes()).isPositive();
            assertThat(m.bufferFullCount()).isPositive();
            // Against models outside the write's accounting: the allocator's own counter, the page
            // size and the budget that were configured.
            assertThat(m.reservedBytes()).as("what the allocator says it gave out").isEqualTo(h.provider.lastOpened().usedBytes());
            assertThat(m.pageBytes()).as("whole 16k pages").isPositive().isLessThanOrEqualTo(m.reservedBytes())
                    .satisfies(pages -> assertThat(pages % (16 << 10)).isZero());
            assertThat(m.peakReservedBytes()).isLessThanOrEqualTo(2 << 20);
            assertThat(m.paimon()).containsKey("writerBuffer.numWriters");
            assertThat(m.cancellations()).isZero();
        }
        MetricsSnapshot last = h.context.snapshot();
        assertThat(last.spillFilesLeft()).isZero();
        assertThat(last.reservedBytes()).isZero();
        assertThat(TestTables.dataFiles(table)).hasSize((int) files);
    }

    /** A write that fits in memory does not spill and never touches the disk: no spill scope is made (SPILL.4). */
    @Test
    void aWriteThatFitsInMemoryDoesNotSpill() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "avro");
        Workload w = Workload.random(5, 2_000, 500, 1, 16);
        try (GovernedTableWrite write = h.batchWriting(table, h.options("64m"), w.rows())) {
            assertThat(h.spillScopes()).as("spill scopes of the open write").isEmpty();
            write.prepareCommit().commit();
            assertThat(h.spillScopes()).as("spill scopes after its commit").isEmpty();
        }
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        MetricsSnapshot m = h.context.snapshot();
        assertThat(m.spillCount()).isZero();
        assertThat(m.spillFiles()).isZero();
        assertThat(m.spillBytes()).isZero();
        assertThat(m.bufferFullCount()).isZero();
    }

    @Test
    void aBatchWritePreparesOnceAndRejectsLaterRows() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        Workload w = Workload.random(9, 100, 50, 1, 8);
        try (GovernedTableWrite write = h.batchWriting(table, h.options("8m"), w.rows())) {
            PreparedCommit prepared = write.prepareCommit();
            assertThatThrownBy(() -> write.write(w.rows().get(0)))
                    .isInstanceOf(GovernanceClosedException.class)
                    .hasMessage("cannot write: the write is prepared (a batch write prepares once)");
            prepared.commit();
            assertThatThrownBy(prepared::commit)
                    .isInstanceOf(GovernanceClosedException.class)
                    .hasMessage("these commit messages were already committed or handed off");
        }
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    @Test
    void closingWithoutCommitAbortsThePreparedFiles() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        Workload w = Workload.random(11, 5_000, 1_000, 2, 16);
        try (GovernedTableWrite write = h.batchWriting(table, h.options("4m"), w.rows())) {
            assertThat(write.prepareCommit().messages()).isNotEmpty();
            assertThat(TestTables.dataFiles(table)).isNotEmpty();
        }
        h.assertNothingLeft(table);
    }

    @Test
    void handedOffMessagesAreLeftToTheCaller() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "orc");
        Workload w = Workload.random(13, 3_000, 1_000, 2, 16);
        List<CommitMessage> messages;
        try (GovernedTableWrite write = h.batchWriting(table, h.options("8m"), w.rows())) {
            messages = write.prepareCommit().handOff();
        }
        try (var commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    @Test
    void aStreamWriteCommitsEachCheckpointAndKeepsItsWriters() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        Workload w = Workload.random(15, WriteHarness.ROWS, WriteHarness.ROWS / 3, 2, 32);
        h.context = io.paimongov.runtime.write.ResourceContext.open(
                "stream", h.provider, h.options("3m", "governance.memory.page-size", "16k"),
                io.paimongov.spi.EngineEnvironment.standalone());
        try (GovernedTableWrite write = GovernedTableWrite.stream(table, "stream-user", h.context)) {
            int half = w.rows().size() / 2;
            for (int i = 0; i < w.rows().size(); i++) {
                write.write(w.rows().get(i));
                if (i == half) {
                    write.prepareCommit(false, 1).commit();
                }
            }
            write.prepareCommit(true, 2).commit();
        }
        assertThat(table.snapshotManager().latestSnapshot().commitIdentifier()).isEqualTo(2);
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(h.context.snapshot().reservedBytes()).isZero();
        assertThat(h.provider.lastOpened().usedAtClose()).isZero();
    }

    @Test
    void anAppendTableIsGovernedToo() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table =
                TestTables.createTable(dir.resolve("wh"), "log", Map.of("bucket", "-1", "file.format", "parquet"), false);
        Workload w = Workload.random(17, 10_000, 10_000, 3, 16);
        List<InternalRow> inserts =
                w.rows().stream().filter(r -> r.getRowKind() == org.apache.paimon.types.RowKind.INSERT).toList();
        h.writeAndCommit(table, h.options("16m"), inserts);
        MetricsSnapshot m = h.context.snapshot();
        assertThat(m.inputRows()).isEqualTo(inserts.size());
        assertThat(m.peakReservedBytes()).isLessThanOrEqualTo(16 << 20);
        assertThat(m.reservedBytes()).isZero();
        long rows = 0;
        var builder = table.newReadBuilder();
        try (var reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            var it = reader.toCloseableIterator();
            while (it.hasNext()) {
                it.next();
                rows++;
            }
        }
        assertThat(rows).isEqualTo(inserts.size());
    }
}
