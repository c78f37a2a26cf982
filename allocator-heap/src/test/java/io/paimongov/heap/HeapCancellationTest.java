package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.spi.WriteCancelledException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cancellation from another thread, on real tables: nothing published, nothing left. */
class HeapCancellationTest {

    @TempDir Path dir;

    @Test
    void cancelFromAnotherThreadMidWrite() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "parquet");
        Workload w = Workload.random(21, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
        int cancelAt = w.rows().size() / 2;
        int threadsBefore = compactionThreads().size();
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        AtomicLong cancelledAt = new AtomicLong();
        int written = 0;
        long seenAt = 0;
        try {
            for (InternalRow row : w.rows()) {
                if (written == cancelAt) {
                    // Another thread cancels while the write is mid-way (between two rows), and is
                    // done before the writer goes on: deterministic on a loaded machine too.
                    Thread canceller = new Thread(() -> {
                        cancelledAt.set(System.nanoTime());
                        write.cancel("test: cancel mid-write");
                    });
                    canceller.start();
                    canceller.join();
                }
                write.write(row);
                written++;
            }
            write.prepareCommit().commit();
        } catch (WriteCancelledException e) {
            seenAt = System.nanoTime();
            assertThat(e).hasMessage("write cancelled: test: cancel mid-write");
        } finally {
            write.close();
        }
        assertThat(seenAt).as("the writer saw the cancel").isPositive();
        System.out.printf("cancel mid-write seen after %d us%n", TimeUnit.NANOSECONDS.toMicros(seenAt - cancelledAt.get()));
        assertThat(written).as("no row was accepted after the cancel").isEqualTo(cancelAt);
        assertThat(h.context.snapshot().cancellations()).isEqualTo(1);
        h.assertNothingLeft(table);
        assertThat(compactionThreads()).hasSizeLessThanOrEqualTo(threadsBefore);
    }

    @Test
    void cancelFromAnotherThreadMidPrepareCommit() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable created = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "parquet");
        // The table's file system holds the writer at its first data file until the cancel was
        // made from another thread: the cancel lands inside prepareCommit on any machine.
        PausingFileIO fileIO = new PausingFileIO();
        FileStoreTable table = FileStoreTableFactory.create(fileIO, created.location(), created.schema());
        Workload w = Workload.random(23, WriteHarness.ROWS, WriteHarness.ROWS, 2, 64);
        GovernedTableWrite write = h.batchWriting(table, h.options("256m"), w.rows());
        fileIO.armed = true;
        Thread canceller =
                new Thread(
                        () -> {
                            try {
                                fileIO.reached.await();
                                write.cancel("test: cancel mid-prepareCommit");
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                fileIO.cancelled.countDown();
                            }
                        });
        canceller.start();
        assertThatThrownBy(write::prepareCommit)
                .isInstanceOf(WriteCancelledException.class)
                .hasMessageContaining("cancel mid-prepareCommit");
        canceller.join();
        write.close();
        h.assertNothingLeft(created);
    }

    /** Local files; once armed, the first data file waits for {@link #cancelled}. */
    private static final class PausingFileIO extends LocalFileIO {
        private static final long serialVersionUID = 1L;
        final transient CountDownLatch reached = new CountDownLatch(1);
        final transient CountDownLatch cancelled = new CountDownLatch(1);
        volatile boolean armed;

        @Override
        public PositionOutputStream newOutputStream(org.apache.paimon.fs.Path path, boolean overwrite) throws IOException {
            if (armed && path.getName().startsWith("data-") && reached.getCount() > 0) {
                reached.countDown();
                try {
                    cancelled.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.newOutputStream(path, overwrite);
        }
    }

    @Test
    void cancelOfAnIdleWriteGivesEverythingBackAtOnce() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        Workload w = Workload.random(25, 20_000, 5_000, 2, 32);
        GovernedTableWrite write = h.batchWriting(table, h.options("2m", "governance.memory.page-size", "16k"), w.rows());
        assertThat(h.context.snapshot().reservedBytes()).isPositive();
        Thread canceller = new Thread(() -> write.cancel("engine: task cancelled"));
        canceller.start();
        canceller.join();
        // No call of the writing thread was needed to give the memory and disk back.
        h.assertNothingLeft(table);
        assertThatThrownBy(() -> write.write(w.rows().get(0)))
                .isInstanceOf(WriteCancelledException.class)
                .hasMessage("write cancelled: engine: task cancelled");
        assertThatThrownBy(write::prepareCommit).isInstanceOf(WriteCancelledException.class);
        write.close();
    }

    @Test
    void anEngineCancelOfAnIdleWriteCleansUpWithoutBlockingTheEngine() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        Workload w = Workload.random(26, 20_000, 5_000, 2, 32);
        GovernedTableWrite write = h.batchWriting(table, h.options("2m", "governance.memory.page-size", "16k"), w.rows());
        // The engine's side: the token, as an engine's cancel callback would reach it.
        h.context.cancel("engine: slot released");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!h.context.isClosed() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        h.assertNothingLeft(table);
        assertThatThrownBy(() -> write.write(w.rows().get(0)))
                .isInstanceOf(WriteCancelledException.class)
                .hasMessage("write cancelled: engine: slot released");
        write.close();
    }

    @Test
    void aPreparedButUncommittedWriteCancelledPublishesNothing() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "orc");
        Workload w = Workload.random(27, 10_000, 3_000, 2, 32);
        GovernedTableWrite write = h.batchWriting(table, h.options("8m"), w.rows());
        PreparedCommit prepared = write.prepareCommit();
        assertThat(TestTables.dataFiles(table)).isNotEmpty();
        write.cancel("test: cancel before commit");
        assertThatThrownBy(prepared::commit).isInstanceOf(WriteCancelledException.class);
        write.close();
        h.assertNothingLeft(table);
    }

    @Test
    void asyncFileWriteIsTurnedOffAndAnInterruptedWriterLeavesNoOrphanFile() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table =
                TestTables.createTable(
                        dir.resolve("wh"),
                        "t",
                        java.util.Map.of("bucket", "4", "file.format", "parquet", "async-file-write", "true"),
                        true);
        Workload w = Workload.random(29, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        assertThat(write.table().options()).containsEntry("async-file-write", "false");
        Thread writer = Thread.currentThread();
        AtomicLong written = new AtomicLong();
        Thread interrupter =
                new Thread(
                        () -> {
                            while (written.get() < w.rows().size() / 3) {
                                Thread.onSpinWait();
                            }
                            writer.interrupt();
                        });
        interrupter.start();
        Exception failure = null;
        try {
            for (InternalRow row : w.rows()) {
                write.write(row);
                written.incrementAndGet();
            }
            write.prepareCommit().commit();
        } catch (Exception e) {
            failure = e;
        } finally {
            interrupter.join();
            Thread.interrupted();
            write.close();
        }
        if (failure == null) {
            assertThat(TestTables.read(table)).isEqualTo(w.expected());
            assertThat(h.context.snapshot().reservedBytes()).isZero();
        } else {
            h.assertNothingLeft(table);
        }
    }

    private static Set<String> compactionThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("paimon-gov-compaction"))
                .collect(Collectors.toSet());
    }
}
