package io.paimongov.connector.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TestTables;
import io.paimongov.spark.SparkGovernanceProvider;
import io.paimongov.spark.SparkWriteAccumulators;
import io.paimongov.spark.SparkWriteAccumulators.Field;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark jobs in local[2] writing a primary-key table through {@link GovernedPaimonWriter}: tasks
 * write and hand off, the driver commits, Paimon reads back what a model says. Spark fails a task
 * that leaks execution memory ({@code spark.unsafe.exceptionOnMemoryLeak=true}); a task may fail
 * twice before its job fails ({@code local[2,2]}), so a leak still fails the job, on the retry.
 */
class SparkLocalJobTest {

    private static JavaSparkContext spark;
    /** Counted down by a task of the cancel test once it has written rows; static: local mode shares the JVM. */
    private static volatile CountDownLatch writing;

    @TempDir Path dir;

    @BeforeAll
    static void startSpark() {
        // A task may fail once and run again (the fail-once test).
        spark = new JavaSparkContext(LocalSpark.session(LocalSpark.LOCAL_2_RETRY).sparkContext());
    }

    @BeforeEach
    void resetCounters() {
        LocalSpark.metrics().reset();
    }

    @Test
    void aJobWritesAPrimaryKeyTableThatEqualsTheModelAndLeavesNothingBehind() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "t", 2, "parquet");
        Ops ops = new Ops(4, 40_000, 8_000);
        Map<String, String> governance = Map.of("governance.memory.budget", "3m", "governance.memory.page-size", "16k");

        writeReadBackAndWait(table, ops, governance, -1);
        assertThat(LocalSpark.metrics().diskBytesSpilled()).as("diskBytesSpilled of the job's tasks").isPositive();
        assertThat(SparkGovernanceProvider.heldBytes()).isZero();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
    }

    @Test
    void anotherConsumerOfTheTaskMakesTheWriteSpillAndTheTableIsStillRight() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "t", 2, "parquet");
        Ops ops = new Ops(1, 60_000, 40_000);
        Map<String, String> governance = Map.of("governance.memory.budget", "64m", "governance.memory.page-size", "32k");

        writeReadBackAndWait(table, ops, governance, ops.rowsPerPartition / 2);
        assertThat(LocalSpark.metrics().memoryBytesSpilled()).as("memoryBytesSpilled: what the write gave back when Spark asked").isPositive();
        assertThat(LocalSpark.metrics().diskBytesSpilled()).as("diskBytesSpilled").isPositive();
        assertThat(SparkGovernanceProvider.heldBytes()).isZero();
    }

    @Test
    void aCancelledJobLeavesNoSnapshotNoSpillFilesAndNoMemory() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "t", 2, "parquet");
        // 100,000 rows of about 100 bytes per task pass the 2m budget many times: the write has
        // spilled before the cancel.
        Ops ops = new Ops(2, 200_000, 50_000);
        String location = table.location().toString();
        Map<String, String> governance = Map.of("governance.memory.budget", "2m", "governance.memory.page-size", "16k");
        writing = new CountDownLatch(ops.partitions);
        Thread canceller = new Thread(() -> {
            try {
                if (writing.await(60, TimeUnit.SECONDS)) {
                    spark.cancelJobGroup("governed-write");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        canceller.start();
        spark.setJobGroup("governed-write", "a governed write to cancel", true);
        try {
            assertThatThrownBy(() -> spark.parallelize(slices(ops), ops.partitions)
                    .mapPartitions(s -> List.of(GovernedPaimonWriter.writePartition(
                            holdAfterUntilKilled(ops.rows(s.next()), 100_000), location, governance)).iterator())
                    .collect())
                    .hasMessageContaining("cancelled");
        } finally {
            spark.clearJobGroup();
            canceller.join();
        }

        assertThat(table.snapshotManager().latestSnapshot()).isNull();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((SparkGovernanceProvider.heldBytes() != 0 || !LocalSpark.spillScopesInSparkLocalDirs().isEmpty()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(SparkGovernanceProvider.heldBytes()).as("bytes held from Spark after the kill").isZero();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
    }

    /**
     * A task fails mid-write once (after its write spilled) and Spark runs it again: the failed
     * attempt gives its task memory back and deletes its spill scope, and the retry writes what the
     * model says. The accumulators the driver registered for the job get each attempt's write once:
     * three writes, the rows of both slices plus the rows the failed attempt wrote, the spilled bytes
     * Spark's task metrics count, nothing left accounted.
     */
    @Test
    void aTaskThatFailsOnceIsRetriedAndTheFailedAttemptLeavesNothing() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "t", 2, "parquet");
        Ops ops = new Ops(2, 100_000, 25_000);
        String location = table.location().toString();
        Map<String, String> governance = Map.of("governance.memory.budget", "2m", "governance.memory.page-size", "16k");
        INJECTED.set(0);
        int failAt = 80_000;
        SparkWriteAccumulators metrics = SparkWriteAccumulators.register(spark.sc());
        List<byte[]> messages = spark.parallelize(slices(ops), ops.partitions)
                .mapPartitions(s -> {
                    int slice = s.next();
                    return List.of(GovernedPaimonWriter.writePartition(
                            failFirstAttemptOfSlice0(ops.rows(slice), slice, failAt), location, governance, metrics)).iterator();
                })
                .collect();
        GovernedPaimonWriter.commit(table, messages);
        LocalSpark.awaitListeners();

        assertThat(INJECTED.get()).as("injected failures").isEqualTo(1);
        assertThat(metrics.value(Field.WRITES)).as("writes: 2 slices and the failed attempt").isEqualTo(3);
        assertThat(metrics.value(Field.INPUT_ROWS)).as("rows: both slices, and the failed attempt's rows before row %d", failAt)
                .isEqualTo(2L * ops.rowsPerPartition + failAt - 1);
        assertThat(metrics.value(Field.SPILL_BYTES)).as("spill bytes = Spark's diskBytesSpilled of the job's tasks")
                .isPositive().isEqualTo(LocalSpark.metrics().diskBytesSpilled());
        assertThat(metrics.value(Field.RESERVED_BYTES)).isZero();
        assertThat(metrics.value(Field.SPILL_FILES_LEFT)).isZero();
        assertThat(TestTables.read(table)).isEqualTo(ops.expected());
        assertThat(SparkGovernanceProvider.heldBytes()).as("bytes held from Spark").isZero();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
    }

    /** Failures {@link #failFirstAttemptOfSlice0} injected; static: local mode shares the JVM. */
    private static final AtomicInteger INJECTED = new AtomicInteger();

    /** {@code rows}, throwing before row {@code at} in the first attempt of slice 0's task. */
    private static Iterator<InternalRow> failFirstAttemptOfSlice0(Iterator<InternalRow> rows, int slice, int at) {
        return onEachRow(rows, seen -> {
            if (seen == at && slice == 0 && TaskContext.get().attemptNumber() == 0) {
                INJECTED.incrementAndGet();
                throw new IllegalStateException("injected: the task failed mid-write");
            }
        });
    }

    /**
     * One job writes {@code ops} into {@code table} (with {@code hogAt} >= 0, a second consumer takes
     * the task's memory before that row), the driver commits, the table must equal the model; then
     * waits for the listener bus to deliver the tasks' metrics.
     */
    private static void writeReadBackAndWait(FileStoreTable table, Ops ops, Map<String, String> governance, int hogAt)
            throws Exception {
        String location = table.location().toString();
        List<byte[]> messages = spark.parallelize(slices(ops), ops.partitions)
                .mapPartitions(s -> {
                    Iterator<InternalRow> rows = ops.rows(s.next());
                    return List.of(GovernedPaimonWriter.writePartition(
                            hogAt < 0 ? rows : hogAfter(rows, hogAt), location, governance)).iterator();
                })
                .collect();
        GovernedPaimonWriter.commit(table, messages);

        assertThat(TestTables.read(table)).isEqualTo(ops.expected());
        LocalSpark.awaitListeners();
    }

    private static List<Integer> slices(Ops ops) {
        return IntStream.range(0, ops.partitions).boxed().toList();
    }

    /**
     * Rows that, before row {@code at}, make a second consumer of the task take as much execution
     * memory as Spark allows, so Spark asks the governed write to spill; it then frees it again.
     */
    private static Iterator<InternalRow> hogAfter(Iterator<InternalRow> rows, int at) {
        return onEachRow(rows, seen -> {
            if (seen == at + 1) {
                Hog hog = new Hog();
                long got = hog.acquireMemory(1L << 40);
                hog.freeMemory(got);
            }
        });
    }

    /**
     * Rows that, after {@code at} rows, count the latch down and hand out no further row until Spark
     * has marked the task killed: the cancel lands mid-write whatever the speed of the machine, and
     * the write meets it at its next row. Spark marks the task before it interrupts the thread.
     */
    private static Iterator<InternalRow> holdAfterUntilKilled(Iterator<InternalRow> rows, int at) {
        return onEachRow(rows, seen -> {
            if (seen != at + 1) {
                return;
            }
            writing.countDown();
            TaskContext task = TaskContext.get();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!task.isInterrupted() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        });
    }

    /** {@code rows}, running {@code beforeRow} with the row's 1-based number before each row is handed out. */
    private static Iterator<InternalRow> onEachRow(Iterator<InternalRow> rows, IntConsumer beforeRow) {
        return new Iterator<>() {
            int seen;

            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public InternalRow next() {
                beforeRow.accept(++seen);
                return rows.next();
            }
        };
    }

    /** A consumer that never spills itself: Spark has to take memory from the others. */
    private static final class Hog extends MemoryConsumer {
        Hog() {
            super(TaskContext.get().taskMemoryManager(), MemoryMode.ON_HEAP);
        }

        @Override
        public long spill(long size, MemoryConsumer trigger) {
            return 0;
        }
    }
}
