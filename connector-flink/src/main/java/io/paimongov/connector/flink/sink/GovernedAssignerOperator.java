package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.write.GovernedAssigner;
import io.paimongov.runtime.write.WriteChannels;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * The assigner stage of a dynamic-bucket or cross-partition update table, one {@link
 * GovernedAssigner} per subtask (as Paimon's {@code HashBucketAssignerOperator} and {@code
 * GlobalIndexAssignerOperator}): each element's row goes out with its bucket, to be routed to the
 * writer of its (partition, bucket). Its memory (the key indexes, RocksDB for cross-partition
 * update) is the operator's declared share of the slot's managed memory ({@link SlotMemory}); its
 * metrics are on the operator's metric group.
 *
 * <p>State: only the commit user (the writers', so that a stream's assigner drops the indexes of
 * partitions whose last rows are committed); the indexes are loaded again from the table after a
 * restore, as Paimon's assigners do.
 *
 * <p>Thread-safety: Flink calls every method on the task thread. May throw what the assigner
 * throws; Flink then fails the task.
 */
final class GovernedAssignerOperator<T> extends AbstractStreamOperator<Tuple2<InternalRow, Integer>>
        implements OneInputStreamOperator<T, Tuple2<InternalRow, Integer>>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final HashMap<String, String> options;
    private final RowConverter<T> converter;
    private final String initialCommitUser;
    private final boolean overwrite;
    private transient String commitUser;
    private transient GovernedAssigner assigner;
    private transient FlinkTaskCancellation cancellation;
    private transient boolean finished;

    GovernedAssignerOperator(
            FileStoreTable table, Map<String, String> options, RowConverter<T> converter, String commitUser, boolean overwrite) {
        this.table = table;
        this.options = new HashMap<>(options);
        this.converter = converter;
        this.initialCommitUser = commitUser;
        this.overwrite = overwrite;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        commitUser = CommitUserState.restoreOrKeep(context, initialCommitUser);
    }

    @Override
    public void open() throws Exception {
        super.open();
        cancellation = new FlinkTaskCancellation(getContainingTask()::isCanceled);
        String name = table.name() + "-assigner-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        // As many channels as assigners: the routing in front of this operator used the same count.
        WriteChannels channels =
                WriteChannels.of(table, getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks()).withAssignerStage();
        assigner = GovernedAssigner.open(table, SlotMemory.open(this, name, options, cancellation), channels, overwrite);
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        assigner.assign(converter.toRow(element.getValue()), (row, bucket) -> output.collect(new StreamRecord<>(Tuple2.of(row, bucket))));
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        assigner.prepareCommit(checkpointId, commitUser);
    }

    @Override
    public void endInput() {
        // Nothing waits for the end: every row went out as it came.
    }

    @Override
    public void finish() throws Exception {
        finished = true;
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (assigner != null) {
                if (!finished) {
                    assigner.cancel("Flink closed the assigner of '" + table.name() + "' before its input finished");
                }
                assigner.close();
            }
        } finally {
            super.close();
        }
    }
}
