package io.paimongov.benchmarks.cancel;

import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;

/**
 * Passes rows on unchanged, counting them into the job's {@link JobProbe} (the cancel's trigger,
 * decided by rows handed to the sink, never by time), and records its slot's {@link MemoryManager}
 * when it opens. Chained to the source, one subtask per slot, so the job's probes see every slot
 * the sink's writers use.
 *
 * <p>Flink calls it on the task thread.
 */
final class SlotProbe extends AbstractStreamOperator<RowData> implements OneInputStreamOperator<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private transient JobProbe probe;

    @Override
    public void open() throws Exception {
        super.open();
        probe = JobProbe.of(getRuntimeContext().getJobInfo().getJobId());
        probe.slot(getContainingTask().getEnvironment().getMemoryManager());
    }

    @Override
    public void processElement(StreamRecord<RowData> element) {
        probe.rowPassed();
        output.collect(element);
    }
}
