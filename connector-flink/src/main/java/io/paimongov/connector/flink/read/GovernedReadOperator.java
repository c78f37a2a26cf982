package io.paimongov.connector.flink.read;

import io.paimongov.connector.flink.sink.SlotMemory;
import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.read.GovernedSplitReader;
import io.paimongov.runtime.read.GovernedTableRead;
import io.paimongov.runtime.write.ResourceContext;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.flink.FlinkRowData;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;

/**
 * Reads the Paimon splits it receives, each whole in order of arrival, with a governed read of its slot: a
 * {@link ResourceContext} on the slot's managed memory ({@link SlotMemory}, the operator's declared
 * share, shared fairly with the slot's governed writers), the task's cancel and its metric group,
 * and a {@link GovernedTableRead} of the table on it. Each row is copied before it is emitted, since
 * Paimon's readers reuse theirs, with the row kind the read gives it (a streaming split's changes).
 * Holds no state of its own: a split it received before a checkpoint's barrier is read before the
 * barrier passes it, so the scan position the split monitor checkpoints is exactly what was read.
 *
 * <p>Called by Flink on the task thread: {@code open}, {@code processElement} per split, {@code
 * endInput}, {@code close}. Not thread-safe.
 */
public final class GovernedReadOperator extends AbstractStreamOperator<RowData> implements OneInputStreamOperator<Split, RowData>,
        BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final HashMap<String, String> governance;
    private final int[] projection;
    private transient ResourceContext context;
    private transient GovernedTableRead read;
    private transient InternalRowSerializer copier;
    private transient StreamRecord<RowData> reused;

    /**
     * @param governance the read's {@code governance.*} options; without a budget the read may use
     *     the operator's whole share of the slot
     * @param projection the fields to read, as indexes into the table's row type
     */
    public GovernedReadOperator(FileStoreTable table, Map<String, String> governance, int[] projection) {
        this.table = table;
        this.governance = new HashMap<>(governance);
        this.projection = projection.clone();
    }

    @Override
    public void open() throws Exception {
        super.open();
        String name = "flink-read-" + getOperatorConfig().getOperatorName() + "-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        context = SlotMemory.open(this, name, governance, new FlinkTaskCancellation(getContainingTask()::isCanceled));
        read = GovernedTableRead.open(table, context).withProjection(projection);
        copier = new InternalRowSerializer(read.rowType());
        reused = new StreamRecord<>(null);
    }

    @Override
    public void processElement(StreamRecord<Split> element) throws Exception {
        Split split = element.getValue();
        try (GovernedSplitReader reader = read.reader(split)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                InternalRow row;
                while ((row = batch.next()) != null) {
                    output.collect(reused.replace(new FlinkRowData(copier.copy(row))));
                }
                batch.releaseBatch();
            }
        }
    }

    @Override
    public void endInput() {
        // Every split was read by processElement.
    }

    /** Closes the read and its context, which gives the slot's memory back. */
    @Override
    public void close() throws Exception {
        try {
            if (read != null) {
                read.close();
            }
        } finally {
            try {
                if (context != null) {
                    context.close();
                }
            } finally {
                super.close();
            }
        }
    }
}
