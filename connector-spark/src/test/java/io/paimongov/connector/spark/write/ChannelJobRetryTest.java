package io.paimongov.connector.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.Success$;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.DeterministicLevel;
import org.apache.spark.rdd.RDD;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.storage.RDDInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stage retries of the two-shuffle write of a dynamic-bucket table ({@link ChannelJob}: route,
 * assign, write), forced in local Spark: a write task throws Spark's {@link FetchFailedException}
 * for the assigned rows in its first stage attempt, as when the executor that held them was lost.
 * Spark then reruns the assigners, and a rerun may assign keys to other buckets; the rule under
 * test is that rows of two runs of the assigners never meet in one commit.
 *
 * <ul>
 *   <li>the assign step's output is {@code INDETERMINATE} to Spark's scheduler;
 *   <li>a fetch failure before any write task finished: every task reruns, the write succeeds and
 *       the table equals the input, each key once, in one bucket;
 *   <li>a fetch failure after a write task finished: the write fails (Spark cannot roll back a
 *       result stage behind an indeterminate one) and leaves no file;
 *   <li>a write task of the first stage attempt that finishes after the assigners were rerun (a
 *       task Spark does not kill, whose result it accepts): the write fails, its results coming
 *       from two stage attempts, and leaves no file.
 * </ul>
 *
 * A failed write must leave no file at all: data files, and the hash index files its write tasks
 * made (which Paimon's own abort of commit messages leaves).
 *
 * The order of events is made by latches on Spark's listener events, not by timing.
 */
@Timeout(180)
class ChannelJobRetryTest {

    private static final int KEYS = 3_000;
    private static final Map<String, String> GOVERNANCE = Map.of("governance.memory.budget", "8m");

    /** The scenario's write tasks: what a write task does before it writes, in its first stage attempt. */
    private static volatile Scenario scenario = Scenario.NONE;
    /** Set by the test: the RDD id of the assigned rows, to find the assigner stage in listener events. */
    private static volatile int assignRdd = -1;
    /** The assigner stage's id, once submitted. */
    private static volatile int assignStage = -1;
    private static volatile CountDownLatch writeTaskDone = new CountDownLatch(1);
    private static volatile CountDownLatch otherWriteTaskRunning = new CountDownLatch(1);
    private static volatile CountDownLatch assignersRerun = new CountDownLatch(1);
    private static final AtomicInteger FETCH_FAILURES = new AtomicInteger();

    private static final SparkListener EVENTS = new SparkListener() {
        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            if ("ResultTask".equals(end.taskType()) && end.reason() instanceof Success$) {
                writeTaskDone.countDown();
            }
        }

        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
            boolean assigners = false;
            for (scala.collection.Iterator<RDDInfo> rdds = submitted.stageInfo().rddInfos().iterator(); rdds.hasNext(); ) {
                assigners |= rdds.next().id() == assignRdd;
            }
            if (assigners) {
                assignStage = submitted.stageInfo().stageId();
                if (submitted.stageInfo().attemptNumber() > 0) {
                    assignersRerun.countDown();
                }
            }
        }
    };

    private static SparkContext spark;

    @TempDir Path dir;

    @BeforeAll
    static void startSpark() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2_FETCH_FAILURES).sparkContext();
        spark.addSparkListener(EVENTS);
    }

    @AfterAll
    static void removeListener() {
        spark.removeSparkListener(EVENTS);
    }

    @BeforeEach
    void reset() {
        scenario = Scenario.NONE;
        assignRdd = -1;
        assignStage = -1;
        writeTaskDone = new CountDownLatch(1);
        otherWriteTaskRunning = new CountDownLatch(1);
        assignersRerun = new CountDownLatch(1);
        FETCH_FAILURES.set(0);
    }

    @Test
    void theAssignStepsOutputIsIndeterminateToSparksScheduler() throws Exception {
        Write write = write(dynamicTable());
        assertThat(write.assignedRows().outputDeterministicLevel()).isEqualTo(DeterministicLevel.INDETERMINATE());
        assertThat(write.routed().outputDeterministicLevel()).as("the rows the write tasks read").isEqualTo(DeterministicLevel.INDETERMINATE());
    }

    @Test
    void aFetchFailureBeforeAnyWriteTaskFinishedRerunsEverythingAndWritesEveryKeyOnce() throws Exception {
        FileStoreTable table = dynamicTable();
        Write write = write(table);
        scenario = Scenario.EVERY_TASK_FAILS;
        List<CommitMessage> messages = write.run();
        assertThat(FETCH_FAILURES.get()).as("fetch failures thrown").isPositive();
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }

        Map<List<Integer>, List<Integer>> buckets = bucketsOfKeys(table);
        assertThat(buckets).as("keys read").hasSize(KEYS);
        buckets.forEach((key, of) -> assertThat(of).as("buckets of key %s", key).hasSize(1));
        Map<List<Integer>, String> expected = TestTables.emptyModel();
        IntStream.range(0, KEYS).forEach(k -> expected.put(List.of(k % 3, k), "v-" + k));
        assertThat(TestTables.read(table)).isEqualTo(expected);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    @Test
    void aFetchFailureAfterAWriteTaskFinishedFailsTheWriteAndLeavesNoFile() throws Exception {
        FileStoreTable table = dynamicTable();
        Write write = write(table);
        scenario = Scenario.FAILS_AFTER_A_WRITE_TASK_FINISHED;
        assertThatThrownBy(write::run).hasStackTraceContaining("A shuffle map stage with indeterminate output was failed and retried");
        assertThat(FETCH_FAILURES.get()).isEqualTo(1);
        assertThat(table.snapshotManager().latestSnapshotId()).as("snapshots").isNull();
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    @Test
    void aWriteTaskOfTheFirstStageAttemptEndingAfterTheAssignersReranFailsTheWriteAndLeavesNoFile() throws Exception {
        FileStoreTable table = dynamicTable();
        Write write = write(table);
        scenario = Scenario.ONE_FAILS_THE_OTHER_ENDS_AFTER_THE_RERUN;
        assertThatThrownBy(write::run)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the write to " + table.fullName() + " is not committed: after a shuffle fetch failure Spark ran its"
                        + " write tasks in stage attempts [0, 1], over rows that different runs of the assigner tasks assigned to"
                        + " buckets (a key could be in two buckets); the written files were deleted, run the write again");
        assertThat(FETCH_FAILURES.get()).isEqualTo(1);
        assertThat(table.snapshotManager().latestSnapshotId()).as("snapshots").isNull();
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    /** What write task {@code task} does before it writes. Runs in the task's thread. */
    private static void beforeWrite(TaskContext task, int shuffle) throws Exception {
        if (task.stageAttemptNumber() > 0) {
            return;
        }
        switch (scenario) {
            case EVERY_TASK_FAILS -> throw fetchFailure(task, shuffle);
            case FAILS_AFTER_A_WRITE_TASK_FINISHED -> {
                if (task.partitionId() == 0) {
                    assertThat(writeTaskDone.await(60, TimeUnit.SECONDS)).as("the other write task ended").isTrue();
                    throw fetchFailure(task, shuffle);
                }
            }
            case ONE_FAILS_THE_OTHER_ENDS_AFTER_THE_RERUN -> {
                if (task.partitionId() == 0) {
                    // Not before the other task runs: a task not yet launched when its stage
                    // attempt failed is never launched in it (seen on a loaded machine).
                    assertThat(otherWriteTaskRunning.await(60, TimeUnit.SECONDS)).as("the other write task runs").isTrue();
                    throw fetchFailure(task, shuffle);
                }
                otherWriteTaskRunning.countDown();
                // Spark located this task's assigned rows when the task began: it writes the old
                // assignment, and ends before the rerun assigners do (row() holds them).
                assertThat(assignersRerun.await(60, TimeUnit.SECONDS)).as("the assigners were rerun").isTrue();
            }
            case NONE -> { }
        }
    }

    /**
     * The input row of key {@code k}. Runs in route and assign tasks; in the scenario of the task
     * that ends after the rerun, a rerun assigner task waits until that write task ended, so that
     * Spark accepts its result before it plans the write stage's next attempt.
     */
    private static InternalRow row(Integer k) {
        TaskContext task = TaskContext.get();
        if (scenario == Scenario.ONE_FAILS_THE_OTHER_ENDS_AFTER_THE_RERUN && task.stageId() == assignStage
                && task.stageAttemptNumber() > 0) {
            try {
                assertThat(writeTaskDone.await(60, TimeUnit.SECONDS)).as("the write task of the first attempt ended").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the write task", e);
            }
        }
        return GenericRow.of(k % 3, k, BinaryString.fromString("v-" + k));
    }

    private static FetchFailedException fetchFailure(TaskContext task, int shuffle) {
        FETCH_FAILURES.incrementAndGet();
        return new FetchFailedException(SparkEnv.get().blockManager().blockManagerId(), shuffle, 0L, 0, task.partitionId(),
                "injected: the assigned rows of map output 0 are lost", null);
    }

    private enum Scenario { NONE, EVERY_TASK_FAILS, FAILS_AFTER_A_WRITE_TASK_FINISHED, ONE_FAILS_THE_OTHER_ENDS_AFTER_THE_RERUN }

    /** A dynamic-bucket table, primary key (p, k), partitioned by p, small buckets. */
    private FileStoreTable dynamicTable() throws Exception {
        return TestTables.createTable(dir, "dynamic",
                Map.of("bucket", "-1", "dynamic-bucket.target-row-num", "300", "file.format", "parquet"), true);
    }

    /** A routed write of keys 0..KEYS-1 (p = k % 3, v = "v-" + k) over 2 channels. */
    private static Write write(FileStoreTable table) {
        WriteChannels channels = WriteChannels.of(table, 2);
        ChannelJob<Integer> job = ChannelJob.of(table, GOVERNANCE, channels, false, ChannelJobRetryTest::row,
                SparkWriteAccumulators.register(spark));
        assertThat(job.assigned()).as("the table's rows go through assigners").isTrue();
        List<Integer> keys = IntStream.range(0, KEYS).boxed().toList();
        RDD<?> routed = job.route(new JavaSparkContext(spark).parallelize(keys, 2).rdd());
        RDD<?> shuffled = routed.dependencies().head().rdd();
        ShuffleDependency<?, ?, ?> assigned = (ShuffleDependency<?, ?, ?>) shuffled.dependencies().head();
        assignRdd = assigned.rdd().id();
        return new Write(job, routed, assigned.rdd(), assigned.shuffleId());
    }

    private record Write(ChannelJob<Integer> job, RDD<?> routed, RDD<?> assignedRows, int shuffle) {
        List<CommitMessage> run() throws Exception {
            int shuffleId = shuffle;
            return job.write(spark, routed, task -> beforeWrite(task, shuffleId));
        }
    }

    /** Every (p, k) read from the table's latest snapshot, with the bucket of each row that has it. */
    private static Map<List<Integer>, List<Integer>> bucketsOfKeys(FileStoreTable table) throws Exception {
        Map<List<Integer>, List<Integer>> buckets = new HashMap<>();
        ReadBuilder builder = table.newReadBuilder();
        for (Split split : builder.newScan().plan().splits()) {
            int bucket = ((DataSplit) split).bucket();
            try (RecordReader<InternalRow> reader = builder.newRead().createReader(split)) {
                reader.forEachRemaining(row -> buckets.computeIfAbsent(List.of(row.getInt(0), row.getInt(1)), key -> new ArrayList<>())
                        .add(bucket));
            }
        }
        return buckets;
    }
}
