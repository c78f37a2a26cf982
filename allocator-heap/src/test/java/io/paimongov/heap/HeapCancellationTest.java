package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
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

    /**
     * A cancelled write's final snapshot keeps Paimon's own metrics as its last prepareCommit read
     * them: its release does not read Paimon's gauges again (docs/metrics.md). The model is what the
     * test wrote into a one-bucket table: one partition before the checkpoint, two after, so Paimon
     * held one writer at the prepareCommit and two at the cancel; a close, which reads them, sees two.
     * A batch write cancelled before any prepareCommit keeps none.
     */
    @Test
    void aCancelledWriteKeepsPaimonsMetricsOfItsLastPrepareCommit() throws Exception {
        for (boolean cancel : new boolean[] {true, false}) {
            WriteHarness h = new WriteHarness(dir.resolve(cancel ? "cancelled" : "closed"));
            FileStoreTable table = TestTables.primaryKeyTable(h.root.resolve("wh"), "t", 1, "avro");
            h.context = ResourceContext.open("metrics", h.provider, h.options("8m"), EngineEnvironment.standalone());
            GovernedTableWrite write = GovernedTableWrite.stream(table, "metrics-test", h.context);
            writePartition(write, 1);
            write.prepareCommit(false, 1);
            assertThat(writers(write.metrics())).as("writers at the prepareCommit").isEqualTo(1);
            writePartition(write, 2);
            if (cancel) {
                assertThat(write.cancel("test: cancel after a second partition")).isTrue();
            }
            write.close();
            assertThat(writers(write.metrics())).as(cancel ? "after the cancel" : "after the close").isEqualTo(cancel ? 1 : 2);
            h.assertNothingLeft(table);
        }
        WriteHarness h = new WriteHarness(dir.resolve("batch"));
        FileStoreTable table = TestTables.primaryKeyTable(h.root.resolve("wh"), "t", 1, "avro");
        GovernedTableWrite write = h.batchWriting(table, h.options("8m"), Workload.random(30, 1_000, 500, 2, 16).rows());
        write.cancel("test: cancel before any prepareCommit");
        assertThat(write.metrics().paimon()).isEmpty();
        write.close();
        h.assertNothingLeft(table);
    }

    private static void writePartition(GovernedTableWrite write, int partition) throws Exception {
        for (int k = 0; k < 100; k++) {
            write.write(GenericRow.of(partition, k, BinaryString.fromString("v" + k)));
        }
    }

    private static int writers(MetricsSnapshot m) {
        return ((Number) m.paimon().get("writerBuffer.numWriters")).intValue();
    }

    /**
     * An engine cancel that is only polled (as Spark's task kill is) is seen by the writing thread at
     * its next check point, which undoes the write itself: no cleanup thread is started (the JVM's own
     * record of thread starts, a JFR recording, says so), and nothing is left.
     */
    @Test
    void aCancelSeenByTheWritingThreadsOwnCheckStartsNoCleanupThread() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        AtomicReference<String> killed = new AtomicReference<>();
        CancellationSignal polled = new CancellationSignal() {
            @Override
            public Optional<String> cancelReason() {
                return Optional.ofNullable(killed.get());
            }

            @Override
            public AutoCloseable onCancel(Runnable listener) {
                return () -> {};
            }
        };
        h.context = ResourceContext.open("polled", h.provider, h.options("8m"),
                EngineEnvironment.builder().with(CancellationSignal.class, polled).build());
        GovernedTableWrite write = GovernedTableWrite.batch(table, h.context);
        List<InternalRow> rows = Workload.random(28, 5_000, 2_000, 2, 32).rows();
        List<String> started = new ArrayList<>();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ThreadStart");
            recording.start();
            assertThatThrownBy(() -> {
                for (int i = 0; i < rows.size(); i++) {
                    if (i == rows.size() / 2) {
                        killed.set("engine: task killed");
                    }
                    write.write(rows.get(i));
                }
            }).isInstanceOf(WriteCancelledException.class).hasMessage("write cancelled: engine: task killed");
            recording.stop();
            Path events = dir.resolve("cancel.jfr");
            recording.dump(events);
            RecordingFile.readAllEvents(events).forEach(e -> {
                RecordedThread thread = e.getThread("thread");
                started.add(thread == null ? "?" : thread.getJavaName());
            });
        }
        assertThat(started).as("threads started while the write was cancelled").noneMatch(n -> n.startsWith("paimon-gov-cancel-"));
        h.assertNothingLeft(table);
        write.close();
    }

    private static Set<String> compactionThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("paimon-gov-compaction"))
                .collect(Collectors.toSet());
    }
}
