package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.write.GovernedTableWrite;
import io.paimongov.spi.write.PreparedCommit;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cancellation from another thread, on real tables: nothing published, nothing left. */
class HeapCancellationTest {

    @TempDir Path dir;

    @Test
    void cancelFromAnotherThreadMidWrite() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "parquet");
        TestTables.Workload w = TestTables.Workload.random(21, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
        AtomicLong written = new AtomicLong();
        AtomicLong cancelledAt = new AtomicLong();
        long cancelAfter = w.rows().size() / 2;
        int threadsBefore = compactionThreads().size();
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        Thread canceller =
                new Thread(
                        () -> {
                            while (written.get() < cancelAfter) {
                                Thread.onSpinWait();
                            }
                            cancelledAt.set(System.nanoTime());
                            write.cancel("test: cancel mid-write");
                        });
        canceller.start();
        long seenAt = 0;
        try {
            for (InternalRow row : w.rows()) {
                write.write(row);
                written.incrementAndGet();
            }
            write.prepareCommit().commit();
        } catch (WriteCancelledException e) {
            seenAt = System.nanoTime();
            assertThat(e).hasMessage("write cancelled: test: cancel mid-write");
        } finally {
            write.close();
            canceller.join();
        }
        assertThat(seenAt).as("the writer saw the cancel").isPositive();
        long latencyMillis = TimeUnit.NANOSECONDS.toMillis(seenAt - cancelledAt.get());
        System.out.printf("cancel mid-write seen after %d ms, %d rows written%n", latencyMillis, written.get());
        assertThat(written.get()).isLessThan(w.rows().size());
        assertThat(h.context.snapshot().cancellations()).isEqualTo(1);
        h.assertNothingLeft(table);
        assertThat(compactionThreads()).hasSizeLessThanOrEqualTo(threadsBefore);
    }

    @Test
    void cancelFromAnotherThreadMidPrepareCommit() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "parquet");
        TestTables.Workload w = TestTables.Workload.random(23, WriteHarness.ROWS, WriteHarness.ROWS, 2, 64);
        GovernedTableWrite write = h.batch(table, h.options("256m"));
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
        CountDownLatch preparing = new CountDownLatch(1);
        Thread canceller =
                new Thread(
                        () -> {
                            try {
                                preparing.await();
                                while (WriteHarness.dataFiles(table).isEmpty()) {
                                    Thread.onSpinWait();
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                            write.cancel("test: cancel mid-prepareCommit");
                        });
        canceller.start();
        preparing.countDown();
        assertThatThrownBy(
                        () -> {
                            PreparedCommit prepared = write.prepareCommit();
                            prepared.commit();
                        })
                .isInstanceOf(WriteCancelledException.class)
                .hasMessageContaining("cancel mid-prepareCommit");
        canceller.join();
        write.close();
        h.assertNothingLeft(table);
    }

    @Test
    void cancelOfAnIdleWriteGivesEverythingBackAtOnce() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        TestTables.Workload w = TestTables.Workload.random(25, 20_000, 5_000, 2, 32);
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
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
        TestTables.Workload w = TestTables.Workload.random(26, 20_000, 5_000, 2, 32);
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
        // The engine's side: the token, as an engine's cancel callback would reach it.
        h.context.cancellation().cancel("engine: slot released");
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
        TestTables.Workload w = TestTables.Workload.random(27, 10_000, 3_000, 2, 32);
        GovernedTableWrite write = h.batch(table, h.options("8m"));
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
        PreparedCommit prepared = write.prepareCommit();
        assertThat(WriteHarness.dataFiles(table)).isNotEmpty();
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
        TestTables.Workload w = TestTables.Workload.random(29, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
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
