package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

/**
 * Checks of the streaming sink tests: the table's snapshots against Flink's completed checkpoints,
 * and what the governed writes hold of the process (open writes, spill scopes, compaction threads,
 * leaked pages). Expected values come from Flink's checkpoint statistics, the job's input and the
 * resources sampled before the job, never from the sink. Called on the test thread.
 */
final class StreamingChecks {

    /** Compaction threads of the {@code flink} provider (FlinkGovernanceProvider names them so). */
    static final String COMPACTION_THREADS = "paimon-gov-flink-compaction-";

    private static final Duration PATIENCE = Duration.ofSeconds(45);

    private StreamingChecks() {}

    /** What governed writes hold of this JVM at one moment. */
    record Resources(int openWrites, int scopeDirs, int compactionThreads, long leaks) {

        static Resources sample(Path flinkTmp) throws IOException {
            return new Resources(ResourceContext.openCount(), StreamingChecks.scopeDirs(flinkTmp), StreamingChecks.compactionThreads().size(),
                    FlinkGovernanceProvider.leaksDetected());
        }
    }

    /**
     * The task managers' temp dirs, where the writers' spill scopes go. The MiniCluster extension
     * sets them to a folder of its own, whatever the cluster configuration says.
     */
    static Path flinkTmp(MiniCluster cluster) {
        return Path.of(cluster.getConfiguration().get(org.apache.flink.configuration.CoreOptions.TMP_DIRS).split(",")[0]);
    }

    /** Spill scopes of governed writes (directories named {@code paimon-gov-*}) under Flink's temp dirs. */
    static int scopeDirs(Path flinkTmp) throws IOException {
        try (Stream<Path> walk = Files.walk(flinkTmp)) {
            return (int) walk.filter(p -> p.getFileName().toString().startsWith("paimon-gov-") && Files.isDirectory(p)).count();
        }
    }

    static List<Thread> compactionThreads() {
        List<Thread> threads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(COMPACTION_THREADS)) {
                threads.add(t);
            }
        }
        return threads;
    }

    /**
     * After a job ended: no write open beyond {@code before}, no spill scope, no compaction thread
     * (each given a bounded time to exit after its pool terminated), no leaked page.
     */
    static void assertReleased(Resources before, Path flinkTmp) throws Exception {
        for (Thread t : compactionThreads()) {
            t.join(PATIENCE.toMillis());
        }
        Resources after = Resources.sample(flinkTmp);
        assertThat(after).as("resources after the job (before it: %s)", before)
                .isEqualTo(new Resources(before.openWrites(), 0, 0, before.leaks()));
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} after 45 s. */
    static void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /**
     * Polls {@code condition} on {@code table}'s content each time a new snapshot appears (reading
     * the table on every poll would take the job's CPU); fails naming {@code what} after 45 s or
     * when {@code job} ended.
     */
    static void awaitTable(JobClient job, FileStoreTable table, String what, Callable<Boolean> condition) throws Exception {
        long[] seen = {-1};
        awaitRunning(job, what, () -> {
            Long latest = table.snapshotManager().latestSnapshotId();
            if (latest == null || latest == seen[0]) {
                return false;
            }
            seen[0] = latest;
            return condition.call();
        });
    }

    /** As {@link #await}, and fails at once when {@code job} ended (failed, say, out of restart attempts). */
    static void awaitRunning(JobClient job, String what, Callable<Boolean> condition) throws Exception {
        await(what, () -> {
            JobStatus status = job.getJobStatus().get();
            if (status.isGloballyTerminalState()) {
                throw new AssertionError("the job ended (" + status + ") before " + what);
            }
            return condition.call();
        });
    }

    /** Waits for {@code more} completed-checkpoint notifications at the injector after now. */
    static void awaitCheckpoints(JobClient job, int more) throws Exception {
        int target = StreamingJob.Faults.NOTIFICATIONS.get() + more;
        awaitRunning(job, more + " more completed checkpoints", () -> StreamingJob.Faults.NOTIFICATIONS.get() >= target);
    }

    /** Waits until a task attempt after {@code attempt} was told of a completed checkpoint: the job recovered. */
    static void awaitRecoveredAfter(JobClient job, int attempt) throws Exception {
        awaitRunning(job, "a completed checkpoint in an attempt after " + attempt,
                () -> StreamingJob.Faults.CHECKPOINTED_ATTEMPT.get() > attempt);
    }

    /** Cancels the job, unless it already ended, and waits until it is globally terminal. */
    static void cancel(JobClient client) throws Exception {
        if (client.getJobStatus().get().isGloballyTerminalState()) {
            return; // failed or finished: the caller's checks say why
        }
        client.cancel().get();
        await("the cancelled job to end", () -> client.getJobStatus().get().isGloballyTerminalState());
    }

    /** The ids of the checkpoints and savepoints Flink completed for {@code job} (history size from the cluster config). */
    static Set<Long> completedCheckpoints(MiniCluster cluster, JobID job) throws Exception {
        CheckpointStatsSnapshot stats = cluster.getArchivedExecutionGraph(job).get().getCheckpointStatsSnapshot();
        Set<Long> ids = new TreeSet<>();
        for (AbstractCheckpointStats checkpoint : stats.getHistory().getCheckpoints()) {
            if (checkpoint.getStatus() == CheckpointStatsStatus.COMPLETED) {
                ids.add(checkpoint.getCheckpointId());
            }
        }
        assertThat((long) ids.size()).as("the checkpoint history holds every completed checkpoint")
                .isEqualTo(stats.getCounts().getNumberOfCompletedCheckpoints());
        return ids;
    }

    /**
     * Exactly once, from the table's snapshots: one commit user, at most one APPEND and one COMPACT
     * snapshot per commit identifier, and no identifier past the last checkpoint Flink completed
     * (an aborted checkpoint's messages are committed, under its id, with the next completed
     * one; what is in flight at a cancel or failure is never committed).
     */
    static void assertExactlyOnce(FileStoreTable table, Set<Long> completed) throws Exception {
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshotManager().snapshots().forEachRemaining(snapshots::add);
        assertThat(snapshots).as("the job committed").isNotEmpty();
        Set<String> users = new HashSet<>();
        Map<String, Integer> perIdentifier = new HashMap<>();
        for (Snapshot s : snapshots) {
            users.add(s.commitUser());
            perIdentifier.merge(s.commitKind() + "@" + s.commitIdentifier(), 1, Integer::sum);
        }
        assertThat(users).as("commit users").hasSize(1);
        assertThat(perIdentifier).as("snapshots per kind@identifier").allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
        long lastCompleted = completed.stream().mapToLong(Long::longValue).max().orElse(-1);
        assertThat(snapshots).extracting(Snapshot::commitIdentifier).as("identifiers, completed checkpoints %s", completed)
                .allMatch(id -> id <= lastCompleted);
    }

    /** The values of an append table's rows, with duplicates, sorted. */
    static List<String> values(FileStoreTable table) throws Exception {
        List<String> values = new ArrayList<>();
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> values.add(row.getString(2).toString()));
        }
        values.sort(null);
        return values;
    }

    /** The append model: the value of every index below {@code n} once, sorted like {@link #values}. */
    static List<String> expectedValues(long n) {
        List<String> values = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            values.add(StreamingJob.change(i, false).v);
        }
        values.sort(null);
        return values;
    }
}
