package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.WriteChannels;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;

/**
 * One governed stream write per subtask. In {@code open()} it takes the slot's memory manager, its
 * share of managed memory (the fraction Flink computed for this operator's declared use case; no
 * declaration fails with a message saying what to add), the task manager's temp directories,
 * the task's cancel flag and the operator's metric group ({@link SlotMemory}), and opens a {@link
 * GovernedTableWrite} through the {@code flink} provider.
 *
 * <p>Shared memory: with {@code governance.memory.sharing=fair} (the default) the write joins the
 * slot's {@link io.paimongov.runtime.memory.SharedMemory} ({@link SlotMemories}) with its share as
 * its guaranteed budget and may borrow what the slot's other governed writers leave unused; with
 * {@code none} its budget is its share, fixed (docs/memory-sharing.md).
 *
 * <p>State: only the commit user ({@link CommitUserState}); a restored subtask writes for the user
 * the job had. The write itself keeps no state, so any parallelism can restore.
 *
 * <p>Commits: before each checkpoint barrier it prepares the checkpoint's commit, waiting for
 * compaction only when Paimon's {@code CoreOptions.prepareCommitWaitCompaction()} asks for it (a
 * lookup-changelog or deletion-vector table with {@code lookup-wait}, Paimon's default) and hands the messages to the committer as {@link Committable}s; at the end of a bounded
 * input it prepares the rest (waiting for compaction) under {@link #END_INPUT}. With Paimon's {@code
 * full-compaction.delta-commits} = n, every n-th checkpoint (and the end of input) first compacts
 * the open buckets fully ({@link #compactFullyAt}). When the task closes
 * without finishing (cancelled or failed) it cancels the write first ({@code
 * GovernedTableWrite.cancel}), so the write aborts what it did not hand off, deletes its spill scope
 * and gives the managed memory back on the task thread, before the task ends. The write's cancel,
 * not the provider's signal: a cancel pushed through the signal is cleaned up on a short-lived
 * thread of the runtime's, which the task thread would only wait for (and, on a busy machine, for
 * that thread to be scheduled); the task thread is the one closing the write anyway.
 *
 * <p>Thread-safety: Flink calls every method on the task thread; the write's compaction threads are
 * its own. May throw what the write throws; Flink then fails the task.
 */
final class GovernedWriterOperator<T> extends AbstractStreamOperator<Committable>
        implements OneInputStreamOperator<T, Committable>, BoundedOneInput {

    /**
     * How an element reaches the write: converted to a row whose bucket the write picks, or, after an
     * assigner ({@link GovernedAssignerOperator}), a row with its bucket. Shipped with the job.
     */
    @FunctionalInterface
    interface Feeder<T> extends Serializable {
        void feed(GovernedTableWrite write, T element) throws Exception;

        static <T> Feeder<T> rows(RowConverter<T> converter) {
            return (write, element) -> write.write(converter.toRow(element));
        }

        static Feeder<Tuple2<InternalRow, Integer>> assigned() {
            return (write, element) -> write.write(element.f0, element.f1);
        }
    }

    private static final long serialVersionUID = 1L;

    /** The commit identifier of what a bounded input wrote after its last checkpoint. */
    static final long END_INPUT = Long.MAX_VALUE;

    private final FileStoreTable table;
    private final HashMap<String, String> options;
    private final Feeder<T> feeder;
    private final String initialCommitUser;
    private final boolean overwrite;
    private transient String commitUser;
    private transient GovernedTableWrite write;
    private transient FlinkTaskCancellation cancellation;
    private transient CommitMessageSerializer serializer;
    private transient boolean finished;
    private transient boolean waitAtCheckpoint;
    /** Paimon's {@code full-compaction.delta-commits}; null when unset. */
    private transient Integer fullCompactionDeltaCommits;
    /** Why the operator must not open, set when the job is built ({@link #refuseAtOpen}); null to open. */
    private String refusal;

    /**
     * @param overwrite the partitions an overwrite replaces (see {@link
     *     GovernedPaimonSink.Builder#overwrite}); null for a plain write
     */
    GovernedWriterOperator(
            FileStoreTable table, Map<String, String> options, Feeder<T> feeder, String commitUser,
            Map<String, String> overwrite) {
        this.table = table;
        this.options = new HashMap<>(options);
        this.feeder = feeder;
        this.initialCommitUser = commitUser;
        this.overwrite = overwrite != null;
    }

    /**
     * Makes {@code open()} fail with an {@link IllegalArgumentException} saying {@code why}, before
     * it takes any memory: for a job Paimon's own sink would fail the same way when its writer
     * starts ({@link UpsertMaterializer}), so that {@code EXPLAIN} of the statement still works.
     * Called when the job is built.
     */
    void refuseAtOpen(String why) {
        this.refusal = why;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        commitUser = CommitUserState.restoreOrKeep(context, initialCommitUser);
    }

    /** The commit user this subtask writes for: the restored one, else the one the job was built with. */
    String commitUser() {
        return commitUser;
    }

    @Override
    public void open() throws Exception {
        super.open();
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        serializer = new CommitMessageSerializer();
        CoreOptions core = CoreOptions.fromMap(table.options());
        waitAtCheckpoint = core.prepareCommitWaitCompaction();
        fullCompactionDeltaCommits = core.fullCompactionDeltaCommits();
        cancellation = new FlinkTaskCancellation(getContainingTask()::isCanceled);
        String name = table.name() + "-writer-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        // As many channels as writers: the routing in front of this operator used the same count.
        WriteChannels channels =
                WriteChannels.of(table, getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks()).withAssignerStage();
        write = GovernedTableWrite.stream(table, commitUser, SlotMemory.open(this, name, options, cancellation), channels, overwrite);
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        feeder.feed(write, element.getValue());
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        boolean full = compactFullyAt(checkpointId);
        handOff(write.prepareCommit(full || waitAtCheckpoint, checkpointId).handOff(), checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        compactFullyAt(END_INPUT);
        handOff(write.prepareCommit(true, END_INPUT).handOff(), END_INPUT);
    }

    /**
     * Paimon's {@code full-compaction.delta-commits}: at every checkpoint whose id is a multiple of it
     * (and at the end of input), as Paimon's own sink decides, a full compaction of every bucket the
     * write holds open, through the write's governed compaction executor; that checkpoint then waits
     * for it, as in Paimon's sink.
     *
     * @return whether this checkpoint compacts fully
     */
    private boolean compactFullyAt(long checkpointId) throws Exception {
        Integer every = fullCompactionDeltaCommits;
        if (every == null || (checkpointId % every != 0 && checkpointId != END_INPUT)) {
            return false;
        }
        for (Map.Entry<BinaryRow, List<Integer>> partition : write.activeBuckets().entrySet()) {
            for (int bucket : partition.getValue()) {
                write.compact(partition.getKey(), bucket, true);
            }
        }
        return true;
    }

    private void handOff(List<CommitMessage> messages, long checkpointId) throws Exception {
        for (CommitMessage message : messages) {
            output.collect(new StreamRecord<>(new Committable(checkpointId, serializer.getVersion(), serializer.serialize(message))));
        }
    }

    @Override
    public void finish() throws Exception {
        finished = true;
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (write != null) {
                if (!finished) {
                    write.cancel("Flink closed the writer of '" + table.name() + "' before its input finished"
                            + " (the task was cancelled or failed)");
                }
                write.close();
            }
        } finally {
            super.close();
        }
    }
}
