package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TableFiles;
import io.paimongov.spark.SparkGovernanceProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * {@code writeStream().toTable("g.db.t")} through the catalog, exactly once across failures: JSON
 * files arrive in three rounds, each drained by a query started on the same checkpoint ({@code
 * Trigger.AvailableNow}), one micro-batch per round. Round 1 is run again as after a driver that
 * died between Paimon's commit and Spark's commit log (the log entry is removed, so the restart
 * replays the micro-batch): the replay must commit nothing. In round 2 a task of the micro-batch
 * fails: for the append table, which is written where its rows are, a write task after another
 * write task finished, so that the finished task's files must be aborted; for the primary-key
 * table, a task before the write's shuffle. The query fails and the restart writes the micro-batch
 * once. The table must equal the fold of the rounds, every
 * snapshot must be the query's (one commit user, {@code spark-query-<query id>}, over every start),
 * each micro-batch one APPEND snapshot, and no file may be left that no snapshot references.
 * Primary-key tables with fixed buckets, dynamic buckets and cross-partition update, and an append
 * table.
 */
class StreamingToTableTest {

    private static final int ROUNDS = 3;
    private static final int KEYS = 1_000;
    private static final String SCHEMA = "k INT, v STRING, d STRING";
    /** Armed by the test: partition 0's task of the next micro-batch fails once. */
    private static final AtomicBoolean FAIL_IN_TASK = new AtomicBoolean();
    /** Whether that task waits until a write task of its micro-batch ended before it fails. */
    private static volatile boolean failAfterAWriteTask;
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
        Tables.register(spark, "st", warehouse, Map.of("governance.memory.budget", "16m"));
        spark.sql("CREATE DATABASE IF NOT EXISTS st.db");
        spark.udf().register("fail_once", (UDF1<Integer, Integer>) StreamingToTableTest::failOnce, DataTypes.IntegerType);
    }

    @AfterAll
    static void removeListener() {
        spark.sparkContext().removeSparkListener(WRITE_TASKS);
    }

    /** Fixed buckets over the micro-batch's channels; dynamic buckets and cross-partition update through one channel. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "pk_fixed; 'primary-key' = 'k,d', 'bucket' = '2'",
        "pk_dynamic; 'primary-key' = 'k,d', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '200'",
        "pk_cross_partition; 'primary-key' = 'k', 'bucket' = '-1'"})
    void aPrimaryKeyTableHoldsTheFoldOfTheRoundsWrittenOnceEach(String name, String properties) throws Exception {
        spark.sql("CREATE TABLE st.db." + name + " (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES (" + properties + ")");
        failAfterAWriteTask = false;
        List<String> users = runRounds("st.db." + name);
        Map<String, String> model = new TreeMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (String[] row : rows(round)) {
                model.put(row[0] + "/" + row[2], String.join("|", row));
            }
        }
        List<String> expected = new ArrayList<>(model.values());
        expected.sort(null);
        FileStoreTable table = Tables.paimon(warehouse, "db", name);
        assertThat(Tables.readPaimon(table)).isEqualTo(expected);
        assertCommittedOncePerMicroBatchByTheQuery(table, users);
        TableModesTest.assertOneWriterPerBucketAndCommit(table, ROUNDS);
    }

    @Test
    void anAppendTableHoldsEveryRowOnce() throws Exception {
        spark.sql("CREATE TABLE st.db.log (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES ('bucket' = '-1')");
        failAfterAWriteTask = true;
        List<String> users = runRounds("st.db.log");
        List<String> expected = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            rows(round).forEach(row -> expected.add(String.join("|", row)));
        }
        expected.sort(null);
        FileStoreTable table = Tables.paimon(warehouse, "db", "log");
        assertThat(Tables.query(spark, "SELECT * FROM st.db.log")).isEqualTo(expected);
        assertCommittedOncePerMicroBatchByTheQuery(table, users);
    }

    /** Runs the three rounds with their failures into {@code target}; the query id of every start, as commit users. */
    private List<String> runRounds(String target) throws Exception {
        Path input = Files.createDirectories(dir.resolve("input"));
        Path checkpoint = dir.resolve("checkpoint");
        List<String> users = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            writeRound(input, round);
            if (round == 2) {
                writeTaskDone = new CountDownLatch(1);
                FAIL_IN_TASK.set(true);
                assertThatThrownBy(() -> runToTheEnd(input, checkpoint, target))
                        .isInstanceOf(StreamingQueryException.class)
                        .hasStackTraceContaining("injected");
                assertThat(FAIL_IN_TASK).as("the failure was injected").isFalse();
            }
            Start start = runToTheEnd(input, checkpoint, target);
            assertThat(start.batches()).as("micro-batches run in round %d", round).containsExactly((long) round);
            users.add(start.user());
            if (round == 1) {
                // As if the driver died after Paimon's commit and before Spark logged the micro-batch done.
                Files.delete(checkpoint.resolve("commits").resolve("1"));
                Files.deleteIfExists(checkpoint.resolve("commits").resolve(".1.crc"));
                Start replay = runToTheEnd(input, checkpoint, target);
                assertThat(replay.batches()).as("micro-batches the restart ran again").containsExactly(1L);
                users.add(replay.user());
            }
            assertThat(SparkGovernanceProvider.heldBytes()).as("bytes held from Spark after round %d", round).isZero();
        }
        FileStoreTable table = Tables.paimon(warehouse, "db", target.substring(target.lastIndexOf('.') + 1));
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
        return users;
    }

    /** One start of the query: its commit user and the micro-batches it ran that had rows. */
    private record Start(String user, List<Long> batches) {}

    /** Starts the query on {@code checkpoint} and waits until AvailableNow drained the input. */
    private static Start runToTheEnd(Path input, Path checkpoint, String target) throws Exception {
        StreamingQuery query = spark.readStream()
                .schema(SCHEMA)
                .json(input.toString())
                .selectExpr("fail_once(k) AS k", "v", "d")
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

    /** The UDF the query runs on every row: fails partition 0's task once, when armed. */
    private static Integer failOnce(Integer k) throws Exception {
        if (FAIL_IN_TASK.get() && TaskContext.get().partitionId() == 0) {
            if (failAfterAWriteTask) {
                assertThat(writeTaskDone.await(60, TimeUnit.SECONDS)).as("another write task ended").isTrue();
            }
            if (FAIL_IN_TASK.getAndSet(false)) {
                throw new IllegalStateException("injected: a task of the micro-batch failed");
            }
        }
        return k;
    }

    /** Each micro-batch of the query is one APPEND snapshot of the query's commit user, the same over every start. */
    private static void assertCommittedOncePerMicroBatchByTheQuery(FileStoreTable table, List<String> users) throws IOException {
        assertThat(users).as("commit user of every start of the query").containsOnly(users.get(0));
        List<Long> identifiers = new ArrayList<>();
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            assertThat(s.commitUser()).isEqualTo(users.get(0));
            if (s.commitKind() == Snapshot.CommitKind.APPEND) {
                identifiers.add(s.commitIdentifier());
            }
        }
        assertThat(identifiers).as("micro-batches committed").containsExactlyInAnyOrder(0L, 1L, 2L);
    }

    /** Round {@code round}: a change of most keys (a quarter shifts each round), as (k, v, d). */
    private static List<String[]> rows(int round) {
        List<String[]> rows = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            if ((k + round) % 4 != 0) {
                rows.add(new String[] {Integer.toString(k), "r" + round + "-" + k, "p" + k % 3});
            }
        }
        return rows;
    }

    /** The round's rows in two files (by k % 2), each moved into {@code input} at once. */
    private void writeRound(Path input, int round) throws IOException {
        Path staging = Files.createDirectories(dir.resolve("staging"));
        for (int file = 0; file < 2; file++) {
            StringBuilder json = new StringBuilder();
            for (String[] row : rows(round)) {
                if (Integer.parseInt(row[0]) % 2 == file) {
                    json.append("{\"k\":").append(row[0]).append(",\"v\":\"").append(row[1]).append("\",\"d\":\"").append(row[2])
                            .append("\"}\n");
                }
            }
            Path staged = Files.writeString(staging.resolve("round-" + round + "-" + file + ".json"), json);
            Files.move(staged, input.resolve(staged.getFileName()), StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
