package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.connector.flink.sink.StreamingChecks.Resources;
import io.paimongov.connector.flink.sink.StreamingJob.Faults;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stop-with-savepoint and a restart from it with another writer parallelism (fixed and dynamic
 * buckets, append), and repeated
 * failovers in one job, on the unbounded job of {@link StreamingJob}.
 *
 * <p>Savepoints: the first job is stopped (with or without drain) once it passed half its input;
 * right then the table holds exactly the changes the job read (the savepoint's checkpoint was
 * committed before the tasks stopped). The second job is built anew (a new commit user), restored
 * from the savepoint with another writer parallelism, and runs to the end: the table equals the
 * model, one commit user over both jobs, the savepoint's identifier is not committed again, and the
 * snapshots pass the exactly-once checks of {@link StreamingChecks#assertExactlyOnce}.
 *
 * <p>No growth: {@code governance.flink.failovers} (system property, default 3) task failures in
 * one job; after each restore's first completed checkpoint the open governed writes, their spill
 * scopes and leaked pages are what they were after the first start, and the compaction threads
 * within the writers' bound.
 */
class StreamingSavepointTest {

    private static final long N = 8_000;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = StreamingFailoverTest.cluster();

    @TempDir Path dir;

    @BeforeEach
    void resetFaults() {
        Faults.reset();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aPrimaryKeyJobStoppedWithASavepointRestartsWithThreeWritersInsteadOfOne(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        Map<List<Integer>, String> model = StreamingJob.lastChangePerKey(N);

        stopAndRestore(cluster, table, true, 1, 3, false,
                read -> assertThat(TestTables.read(table)).isEqualTo(StreamingJob.lastChangePerKey(read)),
                () -> TestTables.read(table).equals(model));

        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    /** The assigner stage runs at every parallelism: the job of one writer restores the assigners' state of two. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDynamicBucketJobStoppedWithASavepointRestartsWithOneWriterInsteadOfTwo(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", -1, "avro");
        Map<List<Integer>, String> model = StreamingJob.lastChangePerKey(N);

        stopAndRestore(cluster, table, true, 2, 1, false,
                read -> assertThat(TestTables.read(table)).isEqualTo(StreamingJob.lastChangePerKey(read)),
                () -> TestTables.read(table).equals(model));

        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anAppendJobStoppedWithASavepointRestartsWithOneWriterInsteadOfThree(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table = appendTable();

        stopAndRestore(cluster, table, false, 3, 1, false,
                read -> assertThat(StreamingChecks.values(table)).isEqualTo(StreamingChecks.expectedValues(read)),
                () -> StreamingChecks.values(table).size() >= N);

        assertThat(StreamingChecks.values(table)).isEqualTo(StreamingChecks.expectedValues(N));
    }

    /** Drain ends the input: the writers prepare their last commit at the end of input, before the savepoint. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anAppendJobStoppedWithADrainingSavepointRestartsAndWritesTheRest(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table = appendTable();

        stopAndRestore(cluster, table, false, 1, 2, true,
                read -> assertThat(StreamingChecks.values(table)).isEqualTo(StreamingChecks.expectedValues(read)),
                () -> StreamingChecks.values(table).size() >= N);

        assertThat(StreamingChecks.values(table)).isEqualTo(StreamingChecks.expectedValues(N));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void repeatedFailoversLeaveNoWriteSpillScopeCompactionThreadOrPageBehind(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        int failovers = Integer.getInteger("governance.flink.failovers", 3);
        int writers = 2;
        int compactionThreadsPerWrite = 1; // governance.compaction.task-threads, default
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        Map<List<Integer>, String> model = StreamingJob.lastChangePerKey(N);
        Path flinkTmp = StreamingChecks.flinkTmp(cluster);
        Resources before = Resources.sample(flinkTmp);

        StreamExecutionEnvironment env = StreamingJob.environment(writers, failovers, null);
        StreamingJob.build(env, table, N, true, Map.of());
        JobClient client = env.executeAsync("streaming governed write failing over " + failovers + " times");
        try {
            StreamingChecks.awaitRecoveredAfter(client, -1);
            Resources first = Resources.sample(flinkTmp);
            assertThat(first.openWrites() - before.openWrites()).as("open writes after the first start").isEqualTo(writers);
            // A scope is made at a write's first spill: at most one per live write, none of a dead one.
            assertThat(first.scopeDirs()).as("spill scopes after the first start").isLessThanOrEqualTo(writers);
            assertThat(first.leaks()).as("leaks after the first start").isEqualTo(before.leaks());
            for (int f = 1; f <= failovers; f++) {
                int failure = f;
                Faults.FAIL_NEXT.set(true);
                StreamingChecks.awaitRunning(client, "injected failure " + f, () -> Faults.INJECTED.get() == failure);
                StreamingChecks.awaitRecoveredAfter(client, Faults.injectedAttempt);
                Resources now = Resources.sample(flinkTmp);
                assertThat(now.compactionThreads()).as("compaction threads after failover %s", f)
                        .isLessThanOrEqualTo(writers * compactionThreadsPerWrite);
                assertThat(now.scopeDirs()).as("spill scopes after failover %s", f).isLessThanOrEqualTo(writers);
                assertThat(now).as("after failover %s, as after the first start", f)
                        .isEqualTo(new Resources(first.openWrites(), now.scopeDirs(), now.compactionThreads(), first.leaks()));
            }
            StreamingChecks.awaitTable(client, table, "the table to hold all " + N + " changes", () -> TestTables.read(table).equals(model));
            StreamingChecks.awaitCheckpoints(client, 2);
        } finally {
            StreamingChecks.cancel(client);
        }

        assertThat(TestTables.read(table)).isEqualTo(model);
        StreamingChecks.assertExactlyOnce(table, StreamingChecks.completedCheckpoints(cluster, client.getJobID()));
        StreamingChecks.assertReleased(before, flinkTmp);
    }

    private FileStoreTable appendTable() throws Exception {
        return TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "4", "bucket-key", "k", "file.format", "avro"), false);
    }

    /** A check of the table after the first job, given how many indices that job read. */
    private interface FirstJobCheck {
        void check(long read) throws Exception;
    }

    private void stopAndRestore(MiniCluster cluster, FileStoreTable table, boolean deletes, int from, int to, boolean drain,
            FirstJobCheck afterFirst, Callable<Boolean> complete) throws Exception {
        Path flinkTmp = StreamingChecks.flinkTmp(cluster);
        Resources before = Resources.sample(flinkTmp);

        StreamExecutionEnvironment first = StreamingJob.environment(from, 0, null);
        StreamingJob.build(first, table, N, deletes, Map.of());
        JobClient firstClient = first.executeAsync("streaming governed write, " + from + " writers");
        JobID firstJob = firstClient.getJobID();
        String savepoint;
        try {
            StreamingChecks.awaitRunning(firstClient, "half of the input", () -> Faults.MAX_SEEN.get() >= N / 2);
            savepoint = cluster.stopWithSavepoint(firstJob, dir.resolve("savepoints").toUri().toString(), drain,
                    SavepointFormatType.CANONICAL).get(90, TimeUnit.SECONDS);
        } catch (Exception | AssertionError e) {
            StreamingChecks.cancel(firstClient);
            throw e;
        }
        StreamingChecks.await("the stopped job to end", () -> firstClient.getJobStatus().get().isGloballyTerminalState());
        assertThat(firstClient.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
        afterFirst.check(Faults.MAX_SEEN.get() + 1);
        long savepointId = cluster.getArchivedExecutionGraph(firstJob).get().getCheckpointStatsSnapshot()
                .getHistory().getLatestSavepoint().getCheckpointId();
        long savepointCommits = appendSnapshotsOf(table, savepointId);
        Set<Long> completed = new TreeSet<>(StreamingChecks.completedCheckpoints(cluster, firstJob));
        StreamingChecks.assertExactlyOnce(table, completed);
        StreamingChecks.assertReleased(before, flinkTmp);

        StreamExecutionEnvironment second = StreamingJob.environment(to, 0, savepoint);
        StreamingJob.build(second, table, N, deletes, Map.of());
        JobClient secondClient = second.executeAsync("streaming governed write, " + to + " writers, restored");
        try {
            StreamingChecks.awaitTable(secondClient, table, "the table to hold all " + N + " changes", complete);
            StreamingChecks.awaitCheckpoints(secondClient, 2);
        } finally {
            StreamingChecks.cancel(secondClient);
        }

        completed.addAll(StreamingChecks.completedCheckpoints(cluster, secondClient.getJobID()));
        StreamingChecks.assertExactlyOnce(table, completed);
        assertThat(savepointCommits).as("APPEND snapshots of the savepoint %s after the first job", savepointId).isLessThanOrEqualTo(1);
        assertThat(appendSnapshotsOf(table, savepointId)).as("APPEND snapshots of the savepoint %s at the end", savepointId)
                .isEqualTo(savepointCommits);
        StreamingChecks.assertReleased(before, flinkTmp);
    }

    private static long appendSnapshotsOf(FileStoreTable table, long identifier) throws Exception {
        long count = 0;
        for (Iterator<Snapshot> it = table.snapshotManager().snapshots(); it.hasNext(); ) {
            Snapshot s = it.next();
            if (s.commitKind() == Snapshot.CommitKind.APPEND && s.commitIdentifier() == identifier) {
                count++;
            }
        }
        return count;
    }
}
