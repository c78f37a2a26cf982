package io.paimongov.connector.spark.write;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.Snapshot;
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
 * <p>Paimon publishes the snapshot before it calls the table's commit callbacks, so a commit may
 * throw with its epoch published: {@link #abort} then keeps the files (they are the table's rows),
 * and the epoch's next run finds it committed.
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
                MessageFiles.delete(table, messages);
                LOG.info("epoch {} of commit user {} was committed before: {} messages aborted", epoch, user, messages.size());
                return false;
            }
            return true;
        }
    }

    /**
     * Deletes the files of epoch {@code epoch}'s {@code messages} (a failed epoch's finished tasks)
     * unless the user's snapshots hold the epoch: Spark aborts an epoch whose commit threw too, and
     * that commit may have published its snapshot before a commit callback failed. The files of an
     * epoch run again whose first run had committed stay too when a task of the second run fails
     * (they are in no snapshot; Paimon's orphan-file cleanup removes them).
     *
     * @return whether the files were deleted
     * @throws Exception what reading the snapshots or deleting throws; when the snapshots cannot be
     *     read nothing is deleted
     */
    public static boolean abort(FileStoreTable table, String user, long epoch, List<CommitMessage> messages) throws Exception {
        Optional<Snapshot> published = UserSnapshots.holding(table, user, epoch);
        if (published.isPresent()) {
            LOG.warn("not aborting epoch {} of commit user {} to {}: snapshot {} holds it (its commit failed after publishing),"
                    + " the {} messages' files are the table's", epoch, user, table.fullName(), published.get().id(), messages.size());
            return false;
        }
        MessageFiles.delete(table, messages);
        return true;
    }
}
