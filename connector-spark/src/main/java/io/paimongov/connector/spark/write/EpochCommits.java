package io.paimongov.connector.spark.write;

import java.util.List;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once commits of a streaming query's numbered epochs (Spark's micro-batch ids), shared by
 * {@link GovernedStreamingWriter} and the catalog's streaming write.
 *
 * <p>An epoch is committed with Paimon's {@code StreamTableCommit.filterAndCommit} under the query's
 * commit user ({@link #commitUser}), the epoch id as commit identifier. Spark runs an epoch again
 * after a failure with the same id and the same rows; if its first run had committed, the filter
 * finds the identifier in the user's snapshots, commits nothing, and the new files are aborted. The
 * query id Spark keeps in the checkpoint is the same on every restart of the query, so the user is.
 *
 * <p><b>Thread-safety:</b> stateless; called on the driver.
 */
public final class EpochCommits {

    private static final Logger LOG = LoggerFactory.getLogger(EpochCommits.class);

    private EpochCommits() {}

    /** The commit user of streaming query {@code queryId}: {@code spark-query-<query id>}. */
    public static String commitUser(String queryId) {
        return "spark-query-" + queryId;
    }

    /**
     * Commits epoch {@code epoch} unless the user's snapshots already hold it; then its new files are
     * aborted. A commit that throws aborts nothing: it may have published its snapshot, which the
     * filter finds when the epoch runs again.
     *
     * @return whether this call committed the epoch
     */
    public static boolean commit(FileStoreTable table, String user, long epoch, List<CommitMessage> messages) throws Exception {
        try (StreamTableCommit commit = table.newStreamWriteBuilder().withCommitUser(user).newCommit()) {
            if (commit.filterAndCommit(Map.of(epoch, messages)) == 0) {
                commit.abort(messages);
                LOG.info("epoch {} of commit user {} was committed before: {} messages aborted", epoch, user, messages.size());
                return false;
            }
            return true;
        }
    }

    /** Deletes the files of messages that will not be committed (a failed epoch's finished tasks). */
    public static void abort(FileStoreTable table, String user, List<CommitMessage> messages) throws Exception {
        try (StreamTableCommit commit = table.newStreamWriteBuilder().withCommitUser(user).newCommit()) {
            commit.abort(messages);
        }
    }
}
