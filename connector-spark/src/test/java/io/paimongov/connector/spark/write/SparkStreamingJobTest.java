package io.paimongov.connector.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.spark.SparkGovernanceProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.spark.Success$;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structured Streaming queries in local[2] writing through {@link GovernedStreamingWriter}: a file
 * source over JSON files the test writes in rounds, {@code Trigger.AvailableNow}, one checkpoint per
 * table. One micro-batch fails right after its commit (Spark runs it again: the replay must commit
 * nothing), one between its job and its commit, one in a writing task after another writing task of
 * its job finished; each time the query is started again on the same checkpoint. The model is the rows the test wrote, nothing of the writer: a primary-key table
 * must equal the fold of the rounds, an append table must hold exactly the rows written (a duplicate
 * or a loss shows). Spark fails a task that leaks execution memory ({@code
 * spark.unsafe.exceptionOnMemoryLeak=true}), which would fail the query.
 */
@Timeout(120)
class SparkStreamingJobTest {

    private static final int ROUNDS = 4;
    private static final int FILES_PER_ROUND = 2;
    private static final int KEYS = 2_000;
    private static final String SCHEMA = "p INT, k INT, v STRING";
    private static final Map<String, String> GOVERNANCE = Map.of("governance.memory.budget", "2m", "governance.memory.page-size", "16k");

    /** Armed by the test; the function fails once right after the commit of the next micro-batch. */
    private static final AtomicBoolean FAIL_AFTER_COMMIT = new AtomicBoolean();
    /** Armed by the test; the writer fails once between the next micro-batch's job and its commit. */
    private static final AtomicBoolean FAIL_BEFORE_COMMIT = new AtomicBoolean();
    /** Armed by the test; the writing task of partition 0 fails once, after another writing task of its job ended. */
    private static final AtomicBoolean FAIL_IN_TASK = new AtomicBoolean();
    /** Counted down when a writing task (a result task) ends successfully; replaced before each round. */
    private static volatile CountDownLatch writingTaskDone = new CountDownLatch(1);
    private static final AtomicInteger INJECTED = new AtomicInteger();

    private static SparkSession spark;

    @TempDir Path dir;

    private static final SparkListener WRITING_TASKS = new SparkListener() {
        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            if ("ResultTask".equals(end.taskType()) && end.reason() instanceof Success$) {
                writingTaskDone.countDown();
            }
        }
    };

    @BeforeAll
    static void startSpark() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        spark.sparkContext().addSparkListener(WRITING_TASKS);
    }

    @AfterAll
    static void removeListener() {
        spark.sparkContext().removeSparkListener(WRITING_TASKS);
    }

    @Test
    void aPrimaryKeyTableEqualsTheFoldOfEveryRoundAcrossAReplayAndAFailedCommit() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "pk", 2, "parquet");
        List<String> users = runRoundsWithFailures(table);

        Map<List<Integer>, String> model = TestTables.emptyModel();
        for (int round = 0; round < ROUNDS; round++) {
            for (String[] row : rows(round)) {
                model.put(List.of(Integer.parseInt(row[0]), Integer.parseInt(row[1])), row[2]);
            }
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertCommittedOncePerBatchByTheQuery(table, users);
        assertOneWriterPerBucketAndCommit(table);
    }

    @Test
    void anAppendTableHoldsEveryRowExactlyOnceAcrossAReplayAndAFailedCommit() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "log", Map.of("bucket", "-1", "file.format", "parquet"), false);
        List<String> users = runRoundsWithFailures(table);

        List<String> written = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (String[] row : rows(round)) {
                written.add(String.join("|", row));
            }
        }
        assertThat(readAll(table)).containsExactlyInAnyOrderElementsOf(written);
        assertCommittedOncePerBatchByTheQuery(table, users);
    }

    @Test
    void aLocationWithoutATableIsRefusedNamingIt() {
        String nowhere = dir.resolve("nothing-here").toUri().toString();
        assertThatThrownBy(() -> GovernedStreamingWriter.foreachBatch(nowhere, GOVERNANCE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("no Paimon table at '" + nowhere + "'");
    }

    @Test
    void aDynamicBucketTableIsRoutedByItsAssignersAndEqualsTheFold() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "dyn", Map.of("bucket", "-1", "dynamic-bucket.target-row-num", "300",
                "file.format", "parquet"), true);
        List<String> users = runRoundsWithFailures(table);

        Map<List<Integer>, String> model = TestTables.emptyModel();
        for (int round = 0; round < ROUNDS; round++) {
            for (String[] row : rows(round)) {
                model.put(List.of(Integer.parseInt(row[0]), Integer.parseInt(row[1])), row[2]);
            }
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertCommittedOncePerBatchByTheQuery(table, users);
        assertOneWriterPerBucketAndCommit(table);
    }

    @Test
    void anUnknownSettingOrGovernanceKeyIsRefusedNamingTheKey() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "pk", 1, "parquet");
        assertThatThrownBy(() -> GovernedStreamingWriter.foreachBatch(table, Map.of("governance.memroy.budget", "1m")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.memroy.budget'");
        assertThatThrownBy(() -> GovernedStreamingWriter.foreachBatch(table, Map.of("streaming.commit-usr", "u")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown setting 'streaming.commit-usr'");
    }

    @Test
    void outsideAStreamingQueryTheFunctionAsksForTheCommitUserOption() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "pk", 1, "parquet");
        Dataset<Row> batch = spark.createDataFrame(List.of(RowFactory.create(1, 1, "a")), StructType.fromDDL(SCHEMA));
        assertThatThrownBy(() -> GovernedStreamingWriter.foreachBatch(table, GOVERNANCE).call(batch, 0L))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'sql.streaming.queryId'")
                .hasMessageContaining("set 'streaming.commit-user'");
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
    }

    @Test
    void aMicroBatchWithoutATableColumnFailsBeforeAnyTaskNamingIt() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir, "pk", 1, "parquet");
        StructType noValue = new StructType().add("p", DataTypes.IntegerType).add("k", DataTypes.IntegerType);
        Dataset<Row> batch = spark.createDataFrame(List.of(RowFactory.create(1, 1)), noValue);
        assertThatThrownBy(() -> GovernedStreamingWriter.foreachBatch(table.location().toString(),
                        Map.of(GovernedStreamingWriter.COMMIT_USER, "u")).call(batch, 0L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the micro-batch has no column 'v' of the table");
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
    }

    /**
     * Four rounds through one checkpoint: the first plain; the second fails after its commit, the
     * third between its job and its commit, the fourth in a writing task after the other writing
     * task of its job finished (its messages reached the driver); each failed round is run again by a
     * new start on the checkpoint. Returns the query id of every successful start, as commit users
     * ({@code spark-query-<id>}).
     */
    private List<String> runRoundsWithFailures(FileStoreTable table) throws Exception {
        Path input = Files.createDirectories(dir.resolve("input"));
        Path checkpoint = dir.resolve("checkpoint");
        VoidFunction2<Dataset<Row>, Long> governed =
                GovernedStreamingWriter.foreachBatch(table.location().toString(), GOVERNANCE, new Faults());
        VoidFunction2<Dataset<Row>, Long> failingAfterCommit = (batch, batchId) -> {
            governed.call(batch, batchId);
            if (FAIL_AFTER_COMMIT.getAndSet(false)) {
                INJECTED.incrementAndGet();
                throw new IllegalStateException("injected: the query failed after committing micro-batch " + batchId);
            }
        };
        INJECTED.set(0);
        List<String> users = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            writeRound(input, round);
            writingTaskDone = new CountDownLatch(1);
            FAIL_AFTER_COMMIT.set(round == 1);
            FAIL_BEFORE_COMMIT.set(round == 2);
            FAIL_IN_TASK.set(round == 3);
            if (round > 0) {
                assertThatThrownBy(() -> users.add(runToTheEnd(input, checkpoint, failingAfterCommit)))
                        .isInstanceOf(StreamingQueryException.class)
                        .hasStackTraceContaining("injected");
            }
            users.add(runToTheEnd(input, checkpoint, failingAfterCommit));
            assertThat(SparkGovernanceProvider.heldBytes()).as("bytes held from Spark after round %d", round).isZero();
        }
        assertThat(INJECTED.get()).as("injected failures").isEqualTo(3);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
        return users;
    }

    /** The failures the writer meets: serialized into the tasks, so only static state. */
    private static final class Faults implements GovernedStreamingWriter.BatchFaults {
        private static final long serialVersionUID = 1L;

        @Override
        public void inTask(long batchId, int partition) throws Exception {
            if (partition != 0 || !FAIL_IN_TASK.get()) {
                return;
            }
            // The driver handles task ends one at a time, so once the listener saw the other task end,
            // its result is with the driver before this failure reaches it.
            assertThat(writingTaskDone.await(60, TimeUnit.SECONDS)).as("another writing task ended").isTrue();
            if (FAIL_IN_TASK.getAndSet(false)) {
                INJECTED.incrementAndGet();
                throw new IllegalStateException("injected: a writing task of micro-batch " + batchId + " failed");
            }
        }

        @Override
        public void beforeCommit(long batchId) {
            if (FAIL_BEFORE_COMMIT.getAndSet(false)) {
                INJECTED.incrementAndGet();
                throw new IllegalStateException("injected: the driver failed before committing micro-batch " + batchId);
            }
        }
    }

    /** Starts the query on {@code checkpoint}, waits until AvailableNow has drained the input; its query id. */
    private static String runToTheEnd(Path input, Path checkpoint, VoidFunction2<Dataset<Row>, Long> function) throws Exception {
        StreamingQuery query = spark.readStream()
                .schema(SCHEMA)
                .json(input.toString())
                .writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.AvailableNow())
                .foreachBatch(function)
                .start();
        try {
            assertThat(query.awaitTermination(60_000)).as("the query ended within 60 s").isTrue();
        } finally {
            query.stop();
        }
        return "spark-query-" + query.id();
    }

    /**
     * Every snapshot is the query's (one commit user over all its starts, the one Spark's query id
     * names), and each of the rounds' micro-batches was committed by exactly one APPEND snapshot.
     */
    private static void assertCommittedOncePerBatchByTheQuery(FileStoreTable table, List<String> users) throws IOException {
        assertThat(users).as("commit user of every start of the query").containsOnly(users.get(0));
        List<Long> appended = new ArrayList<>();
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            assertThat(s.commitUser()).isEqualTo(users.get(0));
            if (s.commitKind() == Snapshot.CommitKind.APPEND) {
                appended.add(s.commitIdentifier());
            }
        }
        assertThat(appended).as("identifiers of APPEND snapshots").doesNotHaveDuplicates().hasSize(ROUNDS);
    }

    /**
     * Every (partition, bucket) of a commit was written by one task: Paimon numbers a writer's rows
     * from the bucket's last sequence number, so the level-0 files of two writers of one bucket in
     * one commit overlap in sequence numbers, and then which of two changes of a key wins is not
     * defined. Each round's files split the keys by {@code k % 2}, so without routing both source
     * partitions write every bucket.
     */
    private static void assertOneWriterPerBucketAndCommit(FileStoreTable table) throws IOException {
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            if (s.commitKind() != Snapshot.CommitKind.APPEND) {
                continue;
            }
            for (Split split : table.newSnapshotReader().withSnapshot(s).withMode(ScanMode.DELTA).read().splits()) {
                DataSplit data = (DataSplit) split;
                List<DataFileMeta> files = new ArrayList<>(data.dataFiles());
                files.sort(Comparator.comparingLong(DataFileMeta::minSequenceNumber));
                for (int i = 1; i < files.size(); i++) {
                    assertThat(files.get(i).minSequenceNumber())
                            .as("snapshot %d, partition %s, bucket %d: %s after %s", s.id(), data.partition(), data.bucket(),
                                    files.get(i).fileName(), files.get(i - 1).fileName())
                            .isGreaterThan(files.get(i - 1).maxSequenceNumber());
                }
            }
        }
    }

    /**
     * Round {@code round}: one change per key of the keys it touches (every key but a quarter that
     * shifts each round), split over {@link #FILES_PER_ROUND} files by key; as (p, k, v) strings.
     */
    private static List<String[]> rows(int round) {
        List<String[]> rows = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            if ((k + round) % 4 != 0) {
                rows.add(new String[] {Integer.toString(k % 3), Integer.toString(k), "r" + round + "-k" + k + "-" + "x".repeat(k % 50)});
            }
        }
        return rows;
    }

    /** Writes the round's files into a staging directory and moves each into {@code input} at once. */
    private void writeRound(Path input, int round) throws IOException {
        Path staging = Files.createDirectories(dir.resolve("staging"));
        for (int file = 0; file < FILES_PER_ROUND; file++) {
            StringBuilder json = new StringBuilder();
            for (String[] row : rows(round)) {
                if (Integer.parseInt(row[1]) % FILES_PER_ROUND == file) {
                    json.append("{\"p\":").append(row[0]).append(",\"k\":").append(row[1]).append(",\"v\":\"").append(row[2]).append("\"}\n");
                }
            }
            Path staged = Files.writeString(staging.resolve("round-" + round + "-" + file + ".json"), json);
            Files.move(staged, input.resolve(staged.getFileName()), StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** Every row of the table's latest snapshot as "p|k|v", duplicates kept. */
    private static List<String> readAll(FileStoreTable table) throws IOException {
        List<String> rows = new ArrayList<>();
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> rows.add(row.getInt(0) + "|" + row.getInt(1) + "|" + row.getString(2)));
        }
        return rows;
    }
}
