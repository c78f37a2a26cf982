package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.heap.WatchedFileIO.Point;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.spi.WriteCancelledException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cancel reaches the write inside its long loops, not only at its next file: while a data file
 * is being flushed, while a compaction rewrites, while a commit writes its manifests. Each case
 * cancels from another thread at a point the table's files show ({@link WatchedFileIO}), waits until
 * the cancel was made, and then counts what still reached the file system: at most one check chunk
 * (256 KiB, the streams' documented interval) per stream. Without the checks the whole file is
 * written (megabytes here). The call throws {@link WriteCancelledException}, and nothing stays: no
 * file that no snapshot references, no reservation, no spill scope.
 */
class HeapCancelInLoopsTest {

    /** The documented interval of the streams' checks. */
    private static final long CHUNK = 256 * 1024;

    @TempDir Path dir;

    @Test
    void aCancelDuringAFlushStopsTheFileWithinAChunk() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        WatchedFileIO files = new WatchedFileIO();
        FileStoreTable table = watched(TestTables.primaryKeyTable(dir.resolve("wh"), "t", 1, "parquet"), files);
        // About 6 MB of rows in one bucket: its flush writes one file of several MB.
        Workload w = Workload.random(41, 60_000, 60_000, 1, 100);
        GovernedTableWrite write = h.batchWriting(table, h.options("256m"), w.rows());
        files.arm(Point.FLUSH, () -> cancelFromAnotherThread(write, "test: cancel mid-flush"));
        assertThatThrownBy(write::prepareCommit)
                .isInstanceOf(WriteCancelledException.class)
                .hasMessage("write cancelled: test: cancel mid-flush");
        write.close();
        assertThat(files.fired).isTrue();
        assertThat(files.maxWrittenAfter()).as("bytes a stream wrote after the cancel").isLessThanOrEqualTo(CHUNK);
        h.assertNothingLeft(table);
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    @Test
    void aCancelAtTheStartOfAFlushStopsItsEncodingWithinRows() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        WatchedFileIO files = new WatchedFileIO();
        FileStoreTable table = watched(TestTables.primaryKeyTable(dir.resolve("wh"), "t", 1, "parquet"), files);
        Workload w = Workload.random(42, 60_000, 60_000, 1, 100);
        GovernedTableWrite write = h.batchWriting(table, h.options("256m"), w.rows());
        // Cancelled when the flush opens its file, at its first row. Parquet encodes the rows into
        // a row group in memory (8 MiB at this budget, more than the 6 MB of rows) and writes it at
        // close: without a check in the flush loop every row is encoded, and the file's stream gets
        // a full chunk before its own check refuses. With it at most 1 + 1024 rows are encoded, each
        // under 130 bytes (100-character value, two ints, Paimon's sequence number and row kind),
        // so the file never gets a chunk.
        files.arm(Point.FLUSH_START, () -> cancelFromAnotherThread(write, "test: cancel as the flush starts"));
        assertThatThrownBy(write::prepareCommit).isInstanceOf(WriteCancelledException.class);
        write.close();
        assertThat(files.fired).isTrue();
        assertThat(files.written.values()).as("bytes each file got").allSatisfy(b -> assertThat(b.get()).isLessThan(CHUNK));
        h.assertNothingLeft(table);
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    @Test
    void aCancelDuringACompactionRewriteStopsItWithinAChunk() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable created = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 1, "parquet");
        backlog(created, 6, 12_000);
        WatchedFileIO files = new WatchedFileIO();
        FileStoreTable table = watched(created, files);
        Long snapshotBefore = table.snapshotManager().latestSnapshotId();
        // One more sorted run: the flush at prepareCommit triggers a full rewrite of the backlog
        // (several MB), and the batch prepareCommit waits for it.
        GovernedTableWrite write = h.batchWriting(table, h.options("256m"), Workload.random(43, 100, 100, 1, 20).rows());
        files.arm(Point.COMPACTION, () -> cancelFromAnotherThread(write, "test: cancel mid-compaction"));
        assertThatThrownBy(write::prepareCommit)
                .isInstanceOf(WriteCancelledException.class)
                .hasMessage("write cancelled: test: cancel mid-compaction");
        write.close();
        assertThat(files.fired).as("a compaction rewrite was reading").isTrue();
        assertThat(files.maxWrittenAfter()).as("bytes a stream wrote after the cancel").isLessThanOrEqualTo(CHUNK);
        assertThat(files.maxReadAfter()).as("bytes a stream read after the cancel").isLessThanOrEqualTo(CHUNK);
        assertThat(table.snapshotManager().latestSnapshotId()).isEqualTo(snapshotBefore);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
        assertReleased(h);
    }

    @Test
    void aCancelWhileTheCommitWritesManifestsPublishesNothing() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        WatchedFileIO files = new WatchedFileIO();
        FileStoreTable table = watched(TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet"), files);
        Workload w = Workload.random(45, 20_000, 5_000, 2, 32);
        GovernedTableWrite write = h.batchWriting(table, h.options("64m"), w.rows());
        PreparedCommit prepared = write.prepareCommit();
        files.arm(Point.MANIFEST, () -> cancelFromAnotherThread(write, "test: cancel mid-commit"));
        assertThatThrownBy(prepared::commit)
                .isInstanceOf(WriteCancelledException.class)
                .hasMessage("write cancelled: test: cancel mid-commit");
        write.close();
        assertThat(files.fired).as("the commit created a manifest").isTrue();
        assertThat(files.maxWrittenAfter()).isLessThanOrEqualTo(CHUNK);
        h.assertNothingLeft(table);
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    @Test
    void aCancelAfterTheSnapshotLetsTheCommitFinish() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        WatchedFileIO files = new WatchedFileIO();
        FileStoreTable table = watched(TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet"), files);
        Workload w = Workload.random(47, 20_000, 5_000, 2, 32);
        GovernedTableWrite write = h.batchWriting(table, h.options("64m"), w.rows());
        PreparedCommit prepared = write.prepareCommit();
        files.arm(Point.SNAPSHOT, () -> cancelFromAnotherThread(write, "test: cancel after the snapshot"));
        prepared.commit();
        write.close();
        assertThat(files.fired).isTrue();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(TableFiles.unreferenced(table)).isEmpty();
        assertReleased(h);
    }

    /** The governed write's table over {@code files}: the table's own files, watched. */
    private static FileStoreTable watched(FileStoreTable created, WatchedFileIO files) {
        return FileStoreTableFactory.create(files, created.location(), created.schema());
    }

    /** {@code commits} write-only commits of {@code rows} rows each over the same keys: sorted runs that overlap. */
    private static void backlog(FileStoreTable table, int commits, int rows) throws Exception {
        FileStoreTable writeOnly = table.copy(Map.of("write-only", "true"));
        for (int c = 0; c < commits; c++) {
            BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
                List<InternalRow> commitRows = Workload.random(100 + c, rows, rows, 1, 100).rows();
                for (InternalRow row : commitRows) {
                    write.write(row);
                }
                commit.commit(write.prepareCommit());
            }
        }
    }

    /**
     * Cancels on another thread and returns once the cancel was made: the write's next check sees
     * it. The cancel interrupts compaction threads (this may be one), so the wait goes on through an
     * interrupt and sets the flag again after.
     */
    private static void cancelFromAnotherThread(GovernedTableWrite write, String reason) {
        Thread canceller = new Thread(() -> write.cancel(reason), "test-canceller");
        canceller.start();
        boolean interrupted = false;
        while (canceller.isAlive()) {
            try {
                canceller.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void assertReleased(WriteHarness h) throws Exception {
        assertThat(h.context.isClosed()).isTrue();
        assertThat(h.context.snapshot().reservedBytes()).as("reserved after close").isZero();
        assertThat(h.context.holders()).as("live reservations").isEmpty();
        assertThat(h.provider.lastOpened().usedAtClose()).as("engine memory held at close").isZero();
        assertThat(h.spillScopes()).as("spill scopes left").isEmpty();
    }
}
