package io.paimongov.connector.spark.write;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkGovernanceProvider;
import io.paimongov.spark.SparkWriteAccumulators;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.slf4j.LoggerFactory;

/**
 * One governed batch write inside the current Spark task, fed row by row: what every Spark writer
 * of this module runs in a task ({@link GovernedPaimonWriter#writePartition}, the micro-batches of
 * {@link GovernedStreamingWriter}, the catalog's DataSource V2 writers).
 *
 * <p>{@link #open} opens a {@link ResourceContext} with provider {@code spark}, the task's {@link
 * TaskContext} (Spark task memory, spill under Spark's local dirs, the task's kill and metrics) and
 * the job's {@link SparkWriteAccumulators} (which get the write's final snapshot when it closes),
 * and a {@link GovernedTableWrite#batch} of one channel's rows of {@code channels}; a task
 * completion listener closes it should the task end first (a failure, a kill), which deletes its
 * new files and its spill scope and gives its memory back. {@link #handOff} prepares the commit and hands the
 * messages to the caller, who commits them on the driver or aborts them.
 *
 * <p><b>Thread-safety:</b> the task thread calls every method; not thread-safe. <b>May throw:</b>
 * what the governed write throws ({@code ResourceExhaustedException}, {@code
 * WriteCancelledException}, I/O errors), unchanged, so Spark fails or retries the task.
 */
public final class GovernedTaskWrite implements AutoCloseable {

    private final GovernedTableWrite write;

    private GovernedTaskWrite(GovernedTableWrite write) {
        this.write = write;
    }

    /**
     * Opens the write of {@code table} in the current task.
     *
     * @param governance {@code governance.*} options (budget, page size, ...); the provider is
     *     always {@code spark}
     * @param channels how the engine spread the table's rows over writes; every row given to this
     *     write must carry one channel value that no other write of the same commit receives
     * @param overwrite whether the rows are the data of an overwrite (see {@link
     *     GovernedTableWrite#batch(FileStoreTable, ResourceContext, WriteChannels, boolean)})
     * @param accumulators the accumulators the driver registered for the write's job, shipped with
     *     the task; null when it registered none (the write then reports to Spark's task metrics and
     *     its log line only)
     * @throws IllegalStateException when not called inside a Spark task
     * @throws IllegalArgumentException for bad governance options (naming the key) or a table mode
     *     the governed write cannot run
     */
    public static GovernedTaskWrite open(
            FileStoreTable table,
            Map<String, String> governance,
            WriteChannels channels,
            boolean overwrite,
            SparkWriteAccumulators accumulators) {
        TaskContext task = currentTask();
        GovernedTableWrite write =
                GovernedTableWrite.batch(table, context(task, "write", governance, accumulators), channels, overwrite);
        task.addTaskCompletionListener((TaskCompletionListener) ended -> closeQuietly(write));
        return new GovernedTaskWrite(write);
    }

    /** The task the calling thread runs. */
    public static TaskContext currentTask() {
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("a governed Spark write runs inside a Spark task (TaskContext.get() is null)");
        }
        return task;
    }

    /**
     * A resource context on provider {@code spark} for a {@code role} ("write", "assigner") of {@code
     * task}, reporting its final snapshot to {@code accumulators} unless that is null.
     */
    public static ResourceContext context(
            TaskContext task, String role, Map<String, String> governance, SparkWriteAccumulators accumulators) {
        GovernanceOptions options = GovernanceOptions.of(governance).with(GovernanceOptions.PROVIDER, SparkGovernanceProvider.NAME);
        String name = "spark-" + role + "-stage-" + task.stageId() + "-part-" + task.partitionId() + "-task-" + task.taskAttemptId();
        EngineEnvironment.Builder environment = EngineEnvironment.builder().with(TaskContext.class, task);
        if (accumulators != null) {
            environment.with(SparkWriteAccumulators.class, accumulators);
        }
        return ResourceContext.open(name, new SparkGovernanceProvider(), options, environment.build());
    }

    /** Writes one row (an insert; an upsert for a primary-key table, or what its row kind says). */
    public void write(InternalRow row) throws Exception {
        write.write(row);
    }

    /**
     * Writes one row whose bucket an assigner picked (dynamic buckets or cross-partition update over
     * several channels; see {@link GovernedTableWrite#write(InternalRow, int)}).
     */
    public void write(InternalRow row, int bucket) throws Exception {
        write.write(row, bucket);
    }

    /**
     * Flushes, waits for compactions and gives the commit messages to the caller, who must commit or
     * abort them. Once per write; only {@link #close} may follow.
     */
    public List<CommitMessage> handOff() throws Exception {
        return write.prepareCommit().handOff();
    }

    /** A snapshot of the write's metrics (the final one once closed). */
    public MetricsSnapshot metrics() {
        return write.metrics();
    }

    /**
     * Closes the write: messages not handed off are aborted, the spill scope deleted, the memory
     * given back to Spark. Idempotent.
     */
    @Override
    public void close() throws Exception {
        write.close();
    }

    /** What is already closed closes again harmlessly; a failing close must not mask the task's error. */
    static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            LoggerFactory.getLogger(GovernedTaskWrite.class).warn("closing {} at task end failed", closeable, e);
        }
    }
}
