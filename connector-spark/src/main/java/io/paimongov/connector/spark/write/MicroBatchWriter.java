package io.paimongov.connector.spark.write;

import io.paimongov.connector.spark.write.GovernedStreamingWriter.BatchFaults;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.util.List;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The function {@link GovernedStreamingWriter#foreachBatch} returns: one micro-batch = one {@link
 * ChannelJob} (rows routed by {@link WriteChannels}, through assigners for dynamic-bucket and
 * cross-partition tables, written by governed task writes, reporting to accumulators registered
 * for the micro-batch), then one commit on the driver (contract there).
 *
 * <p>The job's failure aborts the messages of the tasks that had finished ({@link ChannelJob}); a
 * failure between the job and the commit aborts them all. Paimon's filter, not anything of ours,
 * decides whether the micro-batch was committed before.
 */
final class MicroBatchWriter implements VoidFunction2<Dataset<Row>, Long> {

    private static final long serialVersionUID = 1L;

    private final String location;
    private final Map<String, String> governance;
    private final String commitUser;
    private final int parallelism;
    private final BatchFaults faults;

    MicroBatchWriter(String location, Map<String, String> governance, String commitUser, int parallelism, BatchFaults faults) {
        this.location = location;
        this.governance = governance;
        this.commitUser = commitUser;
        this.parallelism = parallelism;
        this.faults = faults;
    }

    @Override
    public void call(Dataset<Row> batch, Long batchId) throws Exception {
        SparkContext spark = batch.sparkSession().sparkContext();
        String user = commitUser(spark);
        FileStoreTable table = GovernedStreamingWriter.open(location);
        SparkRows rows = SparkRows.of(batch.schema(), table.rowType());
        WriteChannels channels = WriteChannels.of(table, parallelism > 0 ? parallelism : spark.defaultParallelism());
        BatchFaults faults = this.faults;
        SparkWriteAccumulators accumulators = SparkWriteAccumulators.register(spark);
        List<CommitMessage> messages = ChannelJob.of(table, governance, channels, false, rows::toPaimon, accumulators)
                .run(batch.rdd(), task -> faults.inTask(batchId, task.partitionId()));
        try {
            faults.beforeCommit(batchId);
        } catch (Throwable e) {
            try {
                EpochCommits.abort(table, user, batchId, messages);
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        EpochCommits.commit(table, user, batchId, messages);
    }

    private String commitUser(SparkContext spark) {
        if (commitUser != null) {
            return commitUser;
        }
        String queryId = spark.getLocalProperty(GovernedStreamingWriter.QUERY_ID_PROPERTY);
        if (queryId == null) {
            throw new IllegalStateException("no streaming query id: the Spark local property '" + GovernedStreamingWriter.QUERY_ID_PROPERTY
                    + "' is not set on this thread; call the function from DataStreamWriter.foreachBatch, or set '"
                    + GovernedStreamingWriter.COMMIT_USER + "'");
        }
        return EpochCommits.commitUser(queryId);
    }
}
