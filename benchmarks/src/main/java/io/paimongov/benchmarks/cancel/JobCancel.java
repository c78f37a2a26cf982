package io.paimongov.benchmarks.cancel;

import io.paimongov.benchmarks.BenchTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecution;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.ArchivedExecutionGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.table.FileStoreTable;

/**
 * How long cancelling a Flink job that writes a Paimon table takes, Paimon's own sink beside the
 * governed one, on one MiniCluster: one task manager with 2 slots, the same managed memory, source,
 * table options and (no) checkpoints for both sides, every job with parallelism 2.
 *
 * <p>A job reads {@code rows} indices from a bounded sequence source, makes each a row ({@link
 * CancelRows}), passes it through {@link SlotProbe} (which counts it) and into the side's sink
 * ({@link FlinkWriteJob}), which writes a fresh primary-key table of {@code buckets} buckets. Once
 * the probes passed {@code cancelAfterRows} rows, the harness cancels the job through the cluster
 * ({@code MiniCluster.cancelJob}, what a client's cancel reaches) and waits for its end. The times
 * come from the job master's own records in the job's archived execution graph (its clock is this
 * JVM's {@code System.currentTimeMillis()}, read just before the cancel call): until every task is
 * {@code CANCELED} (the latest task's {@code CANCELED} timestamp) and until the job is {@code
 * CANCELED}. After each job: whether it left a snapshot, spill scopes under the task manager's temp
 * directories, data files, and whether the slots' managed memory was all back when the job was
 * declared cancelled ({@link MemoryCheckHook}).
 *
 * <p>One untimed pair warms the JVM and the cluster up; then {@code pairs} pairs alternate which
 * side goes first, so both see the same machine. Not thread-safe; one run at a time per JVM (the
 * probes are keyed by job, the cluster is the run's own).
 */
public final class JobCancel {

    /** The rows' type: {@code (k INT NOT NULL, v STRING)}, the columns of {@code BenchTables}' table. */
    public static final RowType ROW_TYPE =
            RowType.of(new LogicalType[] {new IntType(false), new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"k", "v"});

    static final int SLOTS = 2;
    static final int PARALLELISM = 2;
    private static final Duration JOB_PATIENCE = Duration.ofMinutes(10);
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * The sizes, fixed before a run.
     *
     * @param rows rows the bounded source holds
     * @param cancelAfterRows rows passed to the sink before the cancel
     * @param pairs timed (paimon, governed) pairs
     * @param managedMemoryBytes the task manager's managed memory (half per slot); each side's writer
     *     declares the slot's managed memory for itself, so each writer subtask gets one slot's half
     * @param buckets the table's fixed buckets
     */
    public record Settings(long rows, long cancelAfterRows, int pairs, long managedMemoryBytes, int buckets) {

        public Settings {
            if (rows < 1 || cancelAfterRows < 1 || cancelAfterRows >= rows || pairs < 1 || managedMemoryBytes < (1 << 20) || buckets < 1) {
                throw new IllegalArgumentException("bad job-cancel settings: " + rows + " rows, cancel after " + cancelAfterRows
                        + ", " + pairs + " pairs, " + managedMemoryBytes + " bytes of managed memory, " + buckets + " buckets");
            }
        }
    }

    private JobCancel() {}

    /** Runs the pairs under {@code workDir} (the caller removes it); {@code progress} gets a line per job. */
    public static CancelSample.Result run(Path workDir, Settings s, FlinkWriteJob paimon, FlinkWriteJob governed, Consumer<String> progress)
            throws Exception {
        Path tmp = Files.createDirectories(workDir.resolve("flink-tmp"));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConfig(s, tmp))
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(SLOTS)
                .build());
        cluster.start();
        try {
            List<CancelSample> paimonSamples = new ArrayList<>();
            List<CancelSample> governedSamples = new ArrayList<>();
            for (int i = -1; i < s.pairs(); i++) {
                boolean paimonFirst = i % 2 == 0;
                FlinkWriteJob first = paimonFirst ? paimon : governed;
                FlinkWriteJob second = paimonFirst ? governed : paimon;
                CancelSample a = sample(cluster, tmp, workDir.resolve(first.name() + "-" + i), first, s);
                CancelSample b = sample(cluster, tmp, workDir.resolve(second.name() + "-" + i), second, s);
                String what = i < 0 ? "warm-up" : "pair " + (i + 1) + "/" + s.pairs();
                progress.accept(String.format("flink %s: %s %d ms (job %d ms), %s %d ms (job %d ms)",
                        what, first.name(), a.tasksMillis(), a.jobMillis(), second.name(), b.tasksMillis(), b.jobMillis()));
                if (i >= 0) {
                    (paimonFirst ? paimonSamples : governedSamples).add(a);
                    (paimonFirst ? governedSamples : paimonSamples).add(b);
                }
            }
            return new CancelSample.Result("flink", paimonSamples, governedSamples);
        } finally {
            cluster.close();
        }
    }

    private static Configuration clusterConfig(Settings s, Path tmp) {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, new MemorySize(s.managedMemoryBytes()));
        config.set(CoreOptions.TMP_DIRS, tmp.toString());
        config.set(RestOptions.BIND_PORT, "0");
        return config;
    }

    /** One job: build, submit, cancel after the rows, wait for its end, read its times and what it left. */
    private static CancelSample sample(MiniCluster cluster, Path tmp, Path dir, FlinkWriteJob side, Settings s) throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), CancelTables.shape(s.buckets()));
        JobID id = cluster.submitJob(graph(side, table, s).getJobGraph()).get().getJobID();
        JobProbe probe = JobProbe.of(id);
        try {
            awaitRows(cluster, id, probe, s.cancelAfterRows());
            long rowsAtCancel = probe.rows();
            long cancelAt = System.currentTimeMillis();
            cluster.cancelJob(id).get();
            JobResult result = cluster.requestJobResult(id).get(JOB_PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            if (result.getApplicationStatus() != org.apache.flink.runtime.clusterframework.ApplicationStatus.CANCELED) {
                throw new IllegalStateException(side.name() + " job ended " + result.getApplicationStatus() + " instead of cancelled",
                        result.getSerializedThrowable().map(t -> t.deserializeError(JobCancel.class.getClassLoader())).orElse(null));
            }
            JobProbe.MemoryCheck memory = probe.atCancel();
            Leftovers left = Leftovers.look(table, tmp, memory != null && memory.allBack());
            ArchivedExecutionGraph graph = cluster.getArchivedExecutionGraph(id).get();
            int tasks = 0;
            int cancelled = 0;
            for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
                tasks++;
                cancelled += vertex.getCurrentExecutionAttempt().getState() == ExecutionState.CANCELED ? 1 : 0;
            }
            return new CancelSample(lastTaskCanceled(graph, cancelAt) - cancelAt,
                    graph.getStatusTimestamp(JobStatus.CANCELED) - cancelAt, tasks, cancelled, rowsAtCancel, left);
        } finally {
            JobProbe.forget(id);
            BenchTables.deleteTree(dir);
        }
    }

    /** The side's job: sequence source, rows, probe, sink; streaming, no checkpoints; with the memory hook. */
    private static StreamGraph graph(FlinkWriteJob side, FileStoreTable table, Settings s) {
        Configuration config = new Configuration();
        config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(PARALLELISM);
        DataStream<RowData> rows = env.fromSequence(0, s.rows() - 1)
                .map(new IndexToRow(s.rows()))
                .returns(InternalTypeInfo.of(ROW_TYPE))
                .transform("probe", InternalTypeInfo.of(ROW_TYPE), new SlotProbe());
        side.write(rows, table);
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName("cancel " + side.name());
        graph.registerJobStatusHook(new MemoryCheckHook());
        return graph;
    }

    /** Waits until the probes passed {@code target} rows; fails when the job ends first. */
    private static void awaitRows(MiniCluster cluster, JobID id, JobProbe probe, long target) throws Exception {
        long deadline = System.nanoTime() + JOB_PATIENCE.toNanos();
        long nextStatus = 0;
        while (probe.rows() < target) {
            long now = System.nanoTime();
            if (now > deadline) {
                throw new IllegalStateException("job " + id + " passed " + probe.rows() + " of " + target + " rows in " + JOB_PATIENCE);
            }
            if (now >= nextStatus) {
                JobStatus status = cluster.getJobStatus(id).get();
                if (status.isGloballyTerminalState()) {
                    JobResult result = cluster.requestJobResult(id).get();
                    throw new IllegalStateException("job " + id + " ended " + status + " after " + probe.rows() + " of " + target + " rows",
                            result.getSerializedThrowable().map(t -> t.deserializeError(JobCancel.class.getClassLoader())).orElse(null));
                }
                nextStatus = now + TimeUnit.MILLISECONDS.toNanos(50);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * The latest {@code CANCELED} timestamp over the job's tasks. A task that finished before the
     * cancel (a source at its end) is not waited for; any other end is an error.
     */
    private static long lastTaskCanceled(ArchivedExecutionGraph graph, long cancelAt) {
        long last = cancelAt;
        for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
            AccessExecution attempt = vertex.getCurrentExecutionAttempt();
            ExecutionState state = attempt.getState();
            if (state == ExecutionState.CANCELED) {
                last = Math.max(last, attempt.getStateTimestamp(ExecutionState.CANCELED));
            } else if (state != ExecutionState.FINISHED || attempt.getStateTimestamp(ExecutionState.FINISHED) > cancelAt) {
                throw new IllegalStateException("task " + vertex.getTaskNameWithSubtaskIndex() + " ended " + state + ", not cancelled");
            }
        }
        return last;
    }
}
