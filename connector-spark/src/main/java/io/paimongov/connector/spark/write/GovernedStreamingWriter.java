package io.paimongov.connector.spark.write;

import io.paimongov.runtime.config.Counts;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.TableMode;
import io.paimongov.spark.SparkGovernanceProvider;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Spark Structured Streaming into a Paimon table through the governed write, exactly once, as a
 * {@code foreachBatch} function:
 *
 * <pre>{@code
 * stream.writeStream()
 *         .option("checkpointLocation", checkpoint)
 *         .foreachBatch(GovernedStreamingWriter.foreachBatch(tableLocation, Map.of("governance.memory.budget", "64m")))
 *         .start();
 * }</pre>
 *
 * <p>Each micro-batch is one Spark job and at most one commit. The job's tasks write with a {@link
 * GovernedTaskWrite} each (provider {@code spark}, Spark task memory, the task's kill and failure
 * handling); rows of a keyed table (fixed or dynamic buckets, cross-partition update, postpone
 * bucket) are first routed by their {@link io.paimongov.runtime.write.WriteChannels} channel, as
 * Paimon's own connectors route them, so that each channel is written by one task; a bucket-unaware
 * append table is written where the rows are. The driver then commits the tasks' messages with Paimon's {@code StreamTableCommit.filterAndCommit}
 * under the micro-batch's {@code batchId} as commit identifier and a commit user that stays the same
 * across restarts of the query from its checkpoint: {@code spark-query-<query id>}, the id Spark
 * keeps in the checkpoint's metadata (or {@value #COMMIT_USER}). A micro-batch Spark runs again
 * after a failure gets the same {@code batchId} and the same rows; if its first run had committed,
 * the filter finds the identifier in the user's snapshots, commits nothing and the new files are
 * aborted (deleted). When the job or anything before the commit fails, the messages of the tasks
 * that had finished are aborted before the error is rethrown.
 *
 * <p>Not covered: a driver that dies between the job and the commit leaves that micro-batch's files
 * until Paimon's orphan-file cleanup; two changes of one primary key in one micro-batch that come
 * from different source partitions reach the writing task in no defined order (Spark's shuffle), so
 * which one wins is not defined; rows are inserts (upserts for a primary-key table), deletes are not
 * written.
 *
 * <p><b>Thread-safety:</b> the function is called by Spark on the query's stream-execution thread,
 * one micro-batch at a time; it keeps no state between calls. <b>May throw:</b> from {@code
 * foreachBatch}, {@link IllegalArgumentException} for a location that holds no Paimon table, a table
 * mode the governed write cannot run, a column type it cannot convert, or an unknown setting; from
 * the function,
 * {@link IllegalArgumentException} when the micro-batch's columns do not match the table, {@link
 * IllegalStateException} when there is no streaming query id and no {@value #COMMIT_USER}, and what
 * the job or the commit throws, so the query fails and can be restarted from its checkpoint.
 */
public final class GovernedStreamingWriter {

    /**
     * Setting: the commit user instead of {@code spark-query-<query id>}. It must be the same on
     * every restart of one query and different for every query writing the table.
     */
    public static final String COMMIT_USER = "streaming.commit-user";

    /**
     * Setting: how many tasks (write channels) write a keyed table's micro-batch; default Spark's
     * default parallelism. Bucket-unaware append tables are written by the micro-batch's own
     * partitions.
     */
    public static final String WRITE_PARALLELISM = "streaming.write-parallelism";

    /**
     * The Spark local property that holds the query id on the stream-execution thread: Spark's {@code
     * StreamExecution.QUERY_ID_KEY}, written out because that class moved between Spark 4.0 and 4.1
     * (to {@code org.apache.spark.sql.execution.streaming.runtime}); a test pins it to Spark's.
     */
    public static final String QUERY_ID_PROPERTY = "sql.streaming.queryId";

    private GovernedStreamingWriter() {}

    /**
     * The {@code foreachBatch} function writing every micro-batch to the table at {@code tableLocation}.
     *
     * @param settings {@code governance.*} options for every task's write (budget, page size, ...;
     *     the provider is always {@code spark}), {@value #COMMIT_USER}, {@value #WRITE_PARALLELISM}
     * @throws IllegalArgumentException as the class says
     */
    public static VoidFunction2<Dataset<Row>, Long> foreachBatch(String tableLocation, Map<String, String> settings) {
        return foreachBatch(tableLocation, settings, BatchFaults.NONE);
    }

    /** As {@link #foreachBatch(String, Map)} for {@code table}'s location. */
    public static VoidFunction2<Dataset<Row>, Long> foreachBatch(FileStoreTable table, Map<String, String> settings) {
        return foreachBatch(table.location().toString(), settings);
    }

    static VoidFunction2<Dataset<Row>, Long> foreachBatch(String tableLocation, Map<String, String> settings, BatchFaults faults) {
        FileStoreTable table = open(tableLocation);
        TableMode.of(table);
        List<String> unsupported = SparkRows.unsupportedColumns(table.rowType());
        if (!unsupported.isEmpty()) {
            throw new IllegalArgumentException("table " + table.fullName() + " has columns of types the streaming writer does"
                    + " not convert from Spark: " + String.join(", ", unsupported));
        }
        Map<String, String> governance = new TreeMap<>();
        String commitUser = null;
        int parallelism = 0;
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = e.getKey();
            if (key.startsWith("governance.")) {
                governance.put(key, e.getValue());
            } else if (key.equals(COMMIT_USER)) {
                commitUser = requireText(key, e.getValue());
            } else if (key.equals(WRITE_PARALLELISM)) {
                parallelism = Counts.positive(key, e.getValue());
            } else {
                throw new IllegalArgumentException("unknown setting '" + key + "'; the streaming writer takes governance.* options, '"
                        + COMMIT_USER + "' and '" + WRITE_PARALLELISM + "'");
            }
        }
        GovernanceOptions.forProvider(SparkGovernanceProvider.NAME, governance);
        return new MicroBatchWriter(tableLocation, governance, commitUser, parallelism, faults);
    }

    /** The table at {@code location}; a location without one is an {@link IllegalArgumentException}. */
    static FileStoreTable open(String location) {
        try {
            return GovernedPaimonWriter.load(location);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("no Paimon table at '" + location + "': " + e.getMessage(), e);
        }
    }

    private static String requireText(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("'" + key + "' is empty");
        }
        return value;
    }

    /** Test seam: failures injected in a writing task before it writes, and on the driver between the job and the commit. */
    interface BatchFaults extends java.io.Serializable {
        BatchFaults NONE = new BatchFaults() {};

        default void inTask(long batchId, int partition) throws Exception {}

        default void beforeCommit(long batchId) throws Exception {}
    }
}
