package io.paimongov.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.flink.sink.StreamingChecks.Resources;
import io.paimongov.flink.sink.StreamingJob.Faults;
import java.nio.file.Path;
import java.util.Map;
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
 * Primary-key table (model: the last change per key) and append table (model: every row once, so a
 * duplicate shows). After the job is cancelled: one commit user, at most one APPEND and one COMPACT
 * snapshot per identifier, every identifier a checkpoint Flink completed (nothing committed that no
 * completed checkpoint covers, also not after the cancel), and the governed writes gave everything
 * back (no open write, no spill scope, no compaction thread, no leaked page).
 *
 * <p>A MiniCluster of one task manager (4 slots, 16 MiB managed memory) at a time; the job runs on
 * 2 writers.
 */
class StreamingFailoverTest {

    private static final long N = 12_000;
    /** Task managers started so far in this class's cluster; the last is the live one. */
    private static int taskManagers = 1;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    () -> new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .setConfiguration(clusterConfig())
                            .build());

    @TempDir Path dir;

    static Configuration clusterConfig() {
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
        Map<java.util.List<Integer>, String> model = StreamingJob.lastChangePerKey(N);

        runWithFailures(cluster, table, true, () -> TestTables.read(table).equals(model));

        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anAppendTableHoldsEveryRowOnceAfterATaskFailureAndATaskManagerLoss(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table =
                TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "4", "bucket-key", "k", "file.format", "avro"), false);

        runWithFailures(cluster, table, false, () -> StreamingChecks.values(table).size() >= N);

        assertThat(StreamingChecks.values(table)).isEqualTo(StreamingChecks.expectedValues(N));
    }

    /**
     * Runs the job with a task failure at change N/3 and a task-manager loss at change 2N/3 until
     * {@code complete} holds and two more checkpoints completed, cancels it and checks the snapshots
     * and the resources.
     */
    private static void runWithFailures(MiniCluster cluster, FileStoreTable table, boolean deletes,
            java.util.concurrent.Callable<Boolean> complete) throws Exception {
        Path flinkTmp = StreamingChecks.flinkTmp(cluster);
        Resources before = Resources.sample(flinkTmp);
        Faults.FAIL_AT.set(N / 3);
        Faults.cluster = cluster;
        Faults.killTaskManager = taskManagers - 1;
        Faults.KILL_AT.set(2 * N / 3);

        StreamExecutionEnvironment env = StreamingJob.environment(2, 2, null);
        StreamingJob.build(env, table, N, deletes, Map.of());
        JobClient client = env.executeAsync("streaming governed write with failures");
        try {
            Faults.killed.get(90, TimeUnit.SECONDS).get(90, TimeUnit.SECONDS);
            cluster.startTaskManager();
            taskManagers++;
            StreamingChecks.awaitTable(client, table, "the table to hold all " + N + " changes", complete);
            StreamingChecks.awaitCheckpoints(2);
        } finally {
            StreamingChecks.cancel(client);
        }

        assertThat(Faults.INJECTED.get()).as("injected faults").isEqualTo(2);
        StreamingChecks.assertExactlyOnce(table, StreamingChecks.completedCheckpoints(cluster, client.getJobID()));
        StreamingChecks.assertReleased(before, flinkTmp);
    }
}
