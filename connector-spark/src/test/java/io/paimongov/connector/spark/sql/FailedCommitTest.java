package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.Success$;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A commit that throws after Paimon published its snapshot must leave the snapshot's files: the
 * tables carry a commit callback ({@link FailingCommitCallback}, {@code 'commit.callbacks'}) that
 * throws once when armed, as a failing metastore callback would, after the snapshot is live. The
 * statement (or the streaming query) fails, and then every file the table's snapshots reference
 * must exist, the table must read back the rows of the write (through Paimon and the catalog), and
 * nothing unreferenced may be left. A micro-batch whose commit failed that way is found committed
 * when the restarted query runs it again. The counterpart: a write whose job fails after one write
 * task finished published nothing, and the finished task's files must be deleted. The models are
 * the statements' own rows.
 */
class FailedCommitTest {

    private static final String CALLBACK = "'commit.callbacks' = '" + FailingCommitCallback.class.getName() + "'";
    private static final int FIRST_TO = 1_000;
    private static final int SECOND_FROM = 500;
    private static final int SECOND_TO = 1_500;

    /** Armed by the test: partition 0's task fails once, after another write task of its job succeeded. */
    private static final AtomicBoolean FAIL_IN_TASK = new AtomicBoolean();
    private static volatile CountDownLatch writeTaskDone = new CountDownLatch(1);
    private static final SparkListener WRITE_TASKS = new SparkListener() {
        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            if ("ResultTask".equals(end.taskType()) && end.reason() instanceof Success$) {
                writeTaskDone.countDown();
            }
        }
    };

    @TempDir static Path warehouse;
    @TempDir Path dir;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        spark.sparkContext().addSparkListener(WRITE_TASKS);
        Tables.register(spark, "fc", warehouse, Map.of("governance.memory.budget", "8m"));
        spark.sql("CREATE DATABASE IF NOT EXISTS fc.db");
        spark.udf().register("fail_after_a_write_task", (UDF1<Integer, Integer>) FailedCommitTest::failAfterAWriteTask,
                DataTypes.IntegerType);
    }

    @AfterAll
    static void removeListener() {
        FailingCommitCallback.ARMED.set(false);
        spark.sparkContext().removeSparkListener(WRITE_TASKS);
    }

    /**
     * Fixed buckets and the append table are DataSource V2 writes (Spark calls the write's abort
     * after its commit threw); dynamic buckets run as a job of their own that commits and aborts
     * itself.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "fixed_insert; 'primary-key' = 'k,d', 'bucket' = '2'; INTO",
        "dynamic_insert; 'primary-key' = 'k,d', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '200'; INTO",
        "dynamic_overwrite; 'primary-key' = 'k,d', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '200'; OVERWRITE",
        "append_overwrite; 'bucket' = '-1'; OVERWRITE"})
    void aCommitThatFailsAfterPublishingLeavesTheSnapshotsFiles(String name, String properties, String mode) throws Exception {
        String target = "fc.db." + name;
        spark.sql("CREATE TABLE " + target + " (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES (" + properties
                + ", " + CALLBACK + ")");
        spark.sql("INSERT INTO " + target + " SELECT CAST(id AS INT), concat('a-', id), concat('p', id % 3) FROM range(0, "
                + FIRST_TO + ")");
        long before = Tables.paimon(warehouse, "db", name).snapshotManager().latestSnapshotId();

        FailingCommitCallback.ARMED.set(true);
        assertThatThrownBy(() -> spark.sql("INSERT " + mode + " " + target
                        + " SELECT CAST(id AS INT), concat('b-', id), concat('p', id % 3) FROM range(" + SECOND_FROM + ", " + SECOND_TO + ")"))
                .hasStackTraceContaining(FailingCommitCallback.MESSAGE);
        assertThat(FailingCommitCallback.ARMED).as("the callback ran").isFalse();

        FileStoreTable table = Tables.paimon(warehouse, "db", name);
        assertThat(table.snapshotManager().latestSnapshotId()).as("the failed write's snapshot").isGreaterThan(before);
        assertThat(missing(table)).as("files the snapshots reference that are gone").isEmpty();
        List<String> expected = secondWriteOver(mode.equals("INTO"));
        assertThat(Tables.readPaimon(table)).isEqualTo(expected);
        assertThat(Tables.query(spark, "SELECT * FROM " + target)).isEqualTo(expected);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    @Test
    void aMicroBatchWhoseCommitFailedAfterPublishingKeepsItsFilesAndIsCommittedOnce() throws Exception {
        spark.sql("CREATE TABLE fc.db.stream (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES ("
                + "'primary-key' = 'k,d', 'bucket' = '2', " + CALLBACK + ")");
        Path input = Files.createDirectories(dir.resolve("input"));
        Path checkpoint = dir.resolve("checkpoint");
        writeJson(input, 0, 0, FIRST_TO, "a-");

        FailingCommitCallback.ARMED.set(true);
        assertThatThrownBy(() -> runToTheEnd(input, checkpoint, "fc.db.stream"))
                .isInstanceOf(StreamingQueryException.class)
                .hasStackTraceContaining(FailingCommitCallback.MESSAGE);
        assertThat(FailingCommitCallback.ARMED).as("the callback ran").isFalse();
        FileStoreTable table = Tables.paimon(warehouse, "db", "stream");
        assertThat(missing(table)).as("files the snapshots reference that are gone").isEmpty();
        assertThat(Tables.readPaimon(table)).isEqualTo(rows(0, FIRST_TO, "a-"));

        // Spark logged no commit of micro-batch 0: the restart runs it again, and Paimon's filter finds it.
        Start replay = runToTheEnd(input, checkpoint, "fc.db.stream");
        assertThat(replay.batches()).as("micro-batches the restart ran again").containsExactly(0L);
        writeJson(input, 1, SECOND_FROM, SECOND_TO, "b-");
        Start next = runToTheEnd(input, checkpoint, "fc.db.stream");
        assertThat(next.batches()).containsExactly(1L);

        table = Tables.paimon(warehouse, "db", "stream");
        assertThat(Tables.readPaimon(table)).isEqualTo(secondWriteOver(true));
        List<Long> committed = new ArrayList<>();
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            assertThat(s.commitUser()).isEqualTo(replay.user()).isEqualTo(next.user());
            if (s.commitKind() == Snapshot.CommitKind.APPEND) {
                committed.add(s.commitIdentifier());
            }
        }
        assertThat(committed).as("micro-batches committed, once each").containsExactlyInAnyOrder(0L, 1L);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    /** An append table is written where its rows are: task 0 fails after task 1 finished and handed its files to the driver. */
    @Test
    void aWriteWhoseJobFailedDeletesTheFilesOfItsFinishedTasks() throws Exception {
        spark.sql("CREATE TABLE fc.db.log (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES ('bucket' = '-1')");
        spark.sql("INSERT INTO fc.db.log SELECT CAST(id AS INT), concat('a-', id), concat('p', id % 3) FROM range(0, " + FIRST_TO
                + ")");
        writeTaskDone = new CountDownLatch(1);
        FAIL_IN_TASK.set(true);
        assertThatThrownBy(() -> spark.sql("INSERT INTO fc.db.log SELECT fail_after_a_write_task(CAST(id AS INT)),"
                        + " concat('b-', id), concat('p', id % 3) FROM range(" + SECOND_FROM + ", " + SECOND_TO + ", 1, 2)"))
                .hasStackTraceContaining("injected: a write task failed");
        assertThat(FAIL_IN_TASK).as("the failure was injected").isFalse();

        FileStoreTable table = Tables.paimon(warehouse, "db", "log");
        assertThat(table.snapshotManager().latestSnapshotId()).as("snapshots: the first insert's").isEqualTo(1L);
        assertThat(Tables.readPaimon(table)).isEqualTo(rows(0, FIRST_TO, "a-"));
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    /** Names of files the table's snapshots reference that are not on disk (the hints aside). */
    private static Set<String> missing(FileStoreTable table) throws IOException {
        Set<String> onDisk = new TreeSet<>();
        TableFiles.files(table).forEach(file -> onDisk.add(Path.of(file).getFileName().toString()));
        Set<String> missing = new TreeSet<>(TableFiles.referenced(table));
        missing.removeAll(onDisk);
        missing.removeAll(Set.of("LATEST", "EARLIEST"));
        return missing;
    }

    /** The rows (k, prefix + k, p(k % 3)) for k in [from, to), as sorted "k|v|d". */
    private static List<String> rows(int from, int to, String prefix) {
        List<String> rows = new ArrayList<>();
        for (int k = from; k < to; k++) {
            rows.add(k + "|" + prefix + k + "|p" + k % 3);
        }
        rows.sort(null);
        return rows;
    }

    /** The table after the second write: over the first write's rows (a primary-key upsert) or instead of them (an overwrite). */
    private static List<String> secondWriteOver(boolean upsert) {
        Map<Integer, String> byKey = new TreeMap<>();
        if (upsert) {
            for (int k = 0; k < FIRST_TO; k++) {
                byKey.put(k, k + "|a-" + k + "|p" + k % 3);
            }
        }
        for (int k = SECOND_FROM; k < SECOND_TO; k++) {
            byKey.put(k, k + "|b-" + k + "|p" + k % 3);
        }
        List<String> rows = new ArrayList<>(byKey.values());
        rows.sort(null);
        return rows;
    }

    private static void writeJson(Path input, int round, int from, int to, String prefix) throws IOException {
        StringBuilder json = new StringBuilder();
        for (int k = from; k < to; k++) {
            json.append("{\"k\":").append(k).append(",\"v\":\"").append(prefix).append(k).append("\",\"d\":\"p").append(k % 3)
                    .append("\"}\n");
        }
        Path staged = Files.writeString(input.resolveSibling("round-" + round + ".json"), json);
        Files.move(staged, input.resolve(staged.getFileName()));
    }

    /** One start of the query: its commit user and the micro-batches it ran that had rows. */
    private record Start(String user, List<Long> batches) {}

    /** Starts the query on {@code checkpoint} and waits until AvailableNow drained the input. */
    private static Start runToTheEnd(Path input, Path checkpoint, String target) throws Exception {
        StreamingQuery query = spark.readStream()
                .schema("k INT, v STRING, d STRING")
                .json(input.toString())
                .writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.AvailableNow())
                .toTable(target);
        try {
            assertThat(query.awaitTermination(120_000)).as("the query ended within 120 s").isTrue();
        } finally {
            query.stop();
        }
        List<Long> batches = new ArrayList<>();
        for (StreamingQueryProgress progress : query.recentProgress()) {
            if (progress.numInputRows() > 0) {
                batches.add(progress.batchId());
            }
        }
        return new Start("spark-query-" + query.id(), batches);
    }

    private static Integer failAfterAWriteTask(Integer k) throws Exception {
        if (FAIL_IN_TASK.get() && TaskContext.get().partitionId() == 0) {
            assertThat(writeTaskDone.await(60, TimeUnit.SECONDS)).as("another write task ended").isTrue();
            if (FAIL_IN_TASK.getAndSet(false)) {
                throw new IllegalStateException("injected: a write task failed");
            }
        }
        return k;
    }
}
