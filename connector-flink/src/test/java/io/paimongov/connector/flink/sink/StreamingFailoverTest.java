package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.connector.flink.sink.StreamingChecks.Resources;
import io.paimongov.connector.flink.sink.StreamingJob.Faults;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unbounded jobs with checkpoints write exactly once through failures: a task failure injected at a
 * chosen change and, later in the same job, the task manager terminated and a new one started.
 * Primary-key table (model: the last change per key) and append table (model: every row of a prefix
 * of the input once, so a duplicate or a gap shows; that job is cancelled with rows in flight).
 * After the job is cancelled: one commit user, at most one APPEND and one COMPACT snapshot per
 * identifier, no identifier past the last checkpoint Flink completed (nothing in flight committed,
 * also not after the cancel), and the governed writes gave everything back (no open write, no spill
 * scope, no compaction thread, no leaked page).
 *
 * <p>A MiniCluster of one task manager (4 slots, 16 MiB managed memory) at a time; the job runs on
 * 2 writers.
 */
class StreamingFailoverTest {

    private static final long N = 12_000;
    /** Task managers started so far in this class's cluster; the last is the live one. */
    private static int taskManagers = 1;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = cluster();

    @TempDir Path dir;

    /** The streaming tests' cluster: one task manager of 4 slots and 16 MiB managed memory, a long checkpoint history. */
    static MiniClusterExtension cluster() {
        return new MiniClusterExtension(
                () -> new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(4)
                        .setConfiguration(clusterConfig())
                        .build());
    }

    private static Configuration clusterConfig() {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        config.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);
        return config;
    }

    @BeforeEach
    void resetFaults() {
        Faults.reset();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aPrimaryKeyTableHoldsTheLastChangeOfEveryKeyAfterATaskFailureAndATaskManagerLoss(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        Map<List<Integer>, String> model = StreamingJob.lastChangePerKey(N);

        runWithFailures(cluster, table, true, N, () -> TestTables.read(table).equals(model), 2);

        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anAppendTableHoldsEveryRowOnceAfterATaskFailureAndATaskManagerLoss(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table =
                TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "4", "bucket-key", "k", "file.format", "avro"), false);

        // The input never ends: the job is cancelled with rows in flight, right after the table
        // holds N of them. Every commit covers a prefix of the input (one source subtask).
        runWithFailures(cluster, table, false, Long.MAX_VALUE, () -> StreamingChecks.values(table).size() >= N, 0);

        List<String> rows = StreamingChecks.values(table);
        assertThat(rows).as("a prefix of at least %s rows, each once", N).hasSizeGreaterThanOrEqualTo((int) N)
                .isEqualTo(StreamingChecks.expectedValues(rows.size()));
    }

    /**
     * Runs the job with a task failure from change N/3 on, right after a commit (the restore finds
     * committed messages in its state), and a task-manager loss at change 2N/3 (wherever the
     * commit is then: the restore may have to commit and fail once) until {@code complete} holds and
     * {@code settle} more checkpoints completed, cancels it and checks the snapshots and the
     * resources. The input is {@code change(0..n-1)}.
     */
    private static void runWithFailures(MiniCluster cluster, FileStoreTable table, boolean deletes, long n,
            Callable<Boolean> complete, int settle) throws Exception {
        Path flinkTmp = StreamingChecks.flinkTmp(cluster);
        Resources before = Resources.sample(flinkTmp);
        Faults.table = table;
        Faults.FAIL_AT.set(N / 3);
        Faults.cluster = cluster;
        Faults.killTaskManager = taskManagers - 1;
        Faults.KILL_AT.set(2 * N / 3);

        StreamExecutionEnvironment env = StreamingJob.environment(2, 2, null);
        StreamingJob.build(env, table, n, deletes, Map.of());
        JobClient client = env.executeAsync("streaming governed write with failures");
        try {
            StreamingChecks.awaitRunning(client, "the task manager's termination", () -> Faults.killed.isDone());
            Faults.killed.get().get(90, TimeUnit.SECONDS);
            cluster.startTaskManager();
            taskManagers++;
            StreamingChecks.awaitTable(client, table, "the table to hold all " + N + " changes", complete);
            StreamingChecks.awaitCheckpoints(client, settle);
        } finally {
            StreamingChecks.cancel(client);
        }

        assertThat(Faults.INJECTED.get()).as("injected faults").isEqualTo(2);
        StreamingChecks.assertExactlyOnce(table, StreamingChecks.completedCheckpoints(cluster, client.getJobID()));
        StreamingChecks.assertReleased(before, flinkTmp);
    }
}
