package io.paimongov.connector.spark.sql;

import io.paimongov.connector.spark.write.BatchCommits;
import io.paimongov.connector.spark.write.ChannelJob;
import io.paimongov.connector.spark.write.EpochCommits;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.util.List;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.V1Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.sources.InsertableRelation;

/**
 * One write of a table through the catalog, batch ({@code INSERT}, {@code INSERT OVERWRITE}, {@code
 * df.writeTo}) or a streaming query's micro-batch.
 *
 * <p>Distribution: rows of a fixed-bucket or postpone-bucket table are clustered by {@link
 * ChannelFunction} over {@link WriteChannels} of {@code channels} channels, into exactly {@code
 * channels} write tasks, so that every row of one channel reaches one governed write, as Paimon's
 * own connectors shuffle them; rows of a bucket-unaware append table are written where they are.
 * Every task writes through {@link TaskWriters}.
 *
 * <p>Dynamic-bucket and cross-partition update tables need two shuffles (to assigners, then to the
 * writers of the assigned buckets), which a DataSource V2 write cannot ask for: their tables declare
 * {@code V1_BATCH_WRITE}, and Spark hands appends and overwrites by filter to {@link
 * #toInsertableRelation}, which runs a {@link ChannelJob} over {@code channels} channels. The two
 * plans Spark only runs as DataSource V2 writes, a dynamic partition overwrite and a streaming
 * micro-batch, write such a table through one channel: one task assigns and writes every row.
 *
 * <p>Commit, on the driver: a batch write commits every task's messages in one Paimon commit
 * ({@link BatchCommits}, under a commit user of the write's own): an append, or an overwrite of a
 * static partition spec ({@code dynamic-partition-overwrite = false}, the empty spec being the whole
 * table) or of the partitions the write touched ({@code true}). A micro-batch commits exactly once
 * ({@link EpochCommits}) under the user of the query id Spark keeps in the checkpoint. When a job
 * or a commit fails, the files of the tasks that finished are deleted (Spark's abort, or the job's
 * own) unless the write's user has a snapshot holding the commit: Paimon publishes the snapshot
 * before it runs the table's commit callbacks and a batch commit's maintenance, either of which may
 * throw, and the files of a published snapshot are the table's rows.
 *
 * <p>Metrics: the write's {@link SparkWriteAccumulators}, registered when the write was built (one
 * statement's write, one micro-batch), go to every write task; after a batch write, their values
 * are the write node's custom metrics in the SQL tab ({@link SqlWriteMetrics}). A micro-batch's
 * write declares none: Spark asks a streaming write for no driver values, and the node would show
 * zeros.
 *
 * <p>Immutable; built and committed on the driver.
 */
final class GovernedWrite implements V1Write, RequiresDistributionAndOrdering {

    /** What a write does to the rows the table has: null for an append. */
    record Overwrite(Map<String, String> partition, boolean dynamic) {}

    private final FileStoreTable table;
    private final GovernanceSettings settings;
    /** The channels of a job ({@link #toInsertableRelation}). */
    private final WriteChannels channels;
    /** The channels of a DataSource V2 write: one for tables whose rows need an assigner stage. */
    private final WriteChannels v2Channels;
    private final Overwrite overwrite;
    private final String queryId;
    private final SparkWriteAccumulators accumulators;
    private final boolean microBatch;

    /** @param microBatch whether Spark builds this write for a micro-batch of a streaming query */
    GovernedWrite(
            FileStoreTable table,
            GovernanceSettings settings,
            int channels,
            Overwrite overwrite,
            String queryId,
            SparkWriteAccumulators accumulators,
            boolean microBatch) {
        this.table = table;
        this.settings = settings;
        this.channels = WriteChannels.of(table, channels);
        this.v2Channels = this.channels.assigned() ? WriteChannels.single(table) : this.channels;
        this.overwrite = overwrite;
        this.queryId = queryId;
        this.accumulators = accumulators;
        this.microBatch = microBatch;
    }

    /** Whether {@code table}'s rows need an assigner stage, and so its batch writes run as jobs ({@code V1_BATCH_WRITE}). */
    static boolean needsAssigners(FileStoreTable table) {
        return WriteChannels.single(table).assigned();
    }

    @Override
    public Distribution requiredDistribution() {
        if (!v2Channels.keyed()) {
            return Distributions.unspecified();
        }
        return Distributions.clustered(
                new Expression[] {Expressions.apply(ChannelFunction.NAME, ChannelRouting.arguments(table, v2Channels))});
    }

    @Override
    public int requiredNumPartitions() {
        return v2Channels.keyed() ? v2Channels.count() : 0;
    }

    @Override
    public SortOrder[] requiredOrdering() {
        return new SortOrder[0];
    }

    @Override
    public String description() {
        return "GovernedPaimonWrite(" + table.fullName() + ", " + channels.bucketMode() + ", channels=" + channels.count()
                + (overwrite == null ? "" : overwrite.dynamic() ? ", overwrite=dynamic" : ", overwrite=" + overwrite.partition()) + ")";
    }

    @Override
    public String toString() {
        return description();
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return microBatch ? new CustomMetric[0] : SqlWriteMetrics.metrics();
    }

    /**
     * Spark reads these once the batch write's job ended (committed or not), on the driver. Write's
     * method since Spark 4.0, hence no {@code @Override}: the same source also compiles against Spark
     * 3.5 (connector-spark_2.12), which has no driver metrics and never calls it.
     */
    public CustomTaskMetric[] reportDriverMetrics() {
        return SqlWriteMetrics.values(accumulators);
    }

    @Override
    public BatchWrite toBatch() {
        return new Batch();
    }

    @Override
    public StreamingWrite toStreaming() {
        if (overwrite != null) {
            throw new UnsupportedOperationException("a streaming write to " + table.fullName() + " appends: output mode"
                    + " 'complete' (which overwrites the table at every micro-batch) is not supported");
        }
        return new Streaming(EpochCommits.commitUser(queryId));
    }

    private TaskWriters writers() {
        return new TaskWriters(table, settings.governance(), v2Channels, overwrite != null, accumulators);
    }

    /**
     * The batch write as one {@link ChannelJob} over the query's rows, then the commit; Spark's
     * {@code overwrite} flag is unused (the overwrite is what the builder was told).
     */
    @Override
    public InsertableRelation toInsertableRelation() {
        return (data, ignored) -> {
            CatalystToPaimon rows = CatalystToPaimon.of(table.rowType());
            ChannelJob<InternalRow> job =
                    ChannelJob.of(table, settings.governance(), channels, overwrite != null, rows::toPaimon, accumulators);
            List<CommitMessage> messages;
            try {
                messages = job.run(data.queryExecution().toRdd().toJavaRDD().map(InternalRow::copy).rdd());
            } catch (Exception e) {
                throw new IllegalStateException("the write to " + table.fullName() + " failed", e);
            }
            commitOrAbort(BatchCommits.newUser(table), messages);
        };
    }

    /**
     * Commits a batch write's messages as {@code user}; when that fails, deletes their files unless
     * the commit had published its snapshot ({@link BatchCommits#abort}), then rethrows.
     */
    private void commitOrAbort(String user, List<CommitMessage> messages) {
        try {
            commit(user, messages);
        } catch (RuntimeException e) {
            try {
                BatchCommits.abort(table, user, messages);
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Commits a batch write's messages as {@code user}, as the builder said (append or overwrite). */
    private void commit(String user, List<CommitMessage> messages) {
        FileStoreTable target = overwrite == null ? table
                : table.copy(Map.of(CoreOptions.DYNAMIC_PARTITION_OVERWRITE.key(), Boolean.toString(overwrite.dynamic())));
        try {
            BatchCommits.commit(target, user, overwrite == null ? null : overwrite.partition(), messages);
        } catch (Exception e) {
            throw new IllegalStateException("committing the write to " + table.fullName() + " failed", e);
        }
    }

    /** A batch write committed by Spark: {@link #commit}, or {@link #abort} after a failed job or a commit that threw. */
    private final class Batch implements BatchWrite {
        private final String user = BatchCommits.newUser(table);

        @Override
        public String toString() {
            return description();
        }

        @Override
        public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
            return writers();
        }

        /** Spark calls {@link #abort} when this throws ({@code V2TableWriteExec.writeWithV2}). */
        @Override
        public void commit(WriterCommitMessage[] results) {
            GovernedWrite.this.commit(user, TaskWriters.TaskMessages.all(results));
        }

        @Override
        public void abort(WriterCommitMessage[] results) {
            try {
                BatchCommits.abort(table, user, TaskWriters.TaskMessages.all(results));
            } catch (Exception e) {
                throw new IllegalStateException("aborting the write to " + table.fullName() + " failed", e);
            }
        }
    }

    private final class Streaming implements StreamingWrite {
        private final String user;

        Streaming(String user) {
            this.user = user;
        }

        @Override
        public String toString() {
            return description() + " as " + user;
        }

        @Override
        public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
            return writers();
        }

        @Override
        public void commit(long epochId, WriterCommitMessage[] results) {
            try {
                EpochCommits.commit(table, user, epochId, TaskWriters.TaskMessages.all(results));
            } catch (Exception e) {
                throw new IllegalStateException("committing micro-batch " + epochId + " to " + table.fullName() + " failed", e);
            }
        }

        @Override
        public void abort(long epochId, WriterCommitMessage[] results) {
            try {
                EpochCommits.abort(table, user, epochId, TaskWriters.TaskMessages.all(results));
            } catch (Exception e) {
                throw new IllegalStateException("aborting micro-batch " + epochId + " of " + table.fullName() + " failed", e);
            }
        }
    }
}
