package io.paimongov.connector.spark.write;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.InnerTableCommit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one commit of a batch write, under a commit user of the write's own, and the abort that
 * deletes the write's files only when that commit provably published nothing.
 *
 * <p>Why: Paimon's {@code TableCommitImpl} first publishes the snapshot, then, on the same thread,
 * calls the table's commit callbacks ({@code commit.callbacks}, such as adding partitions to a
 * metastore) and, for a batch commit, runs the table's maintenance (snapshot, partition and tag
 * expiry, tag creation). When one of those throws, the commit throws with its snapshot live: the
 * write's files are the table's rows now, and deleting them would make every later read fail with
 * a missing file. So {@link #abort} deletes the files ({@link MessageFiles}) only when no snapshot
 * of the write's user holds its commit ({@link UserSnapshots}); otherwise it leaves them, and the
 * caller rethrows the commit's error. Paimon's own Spark writer deletes nothing on abort (its files
 * wait for orphan cleanup); this class deletes what can be shown to be unreferenced.
 *
 * <p>The commit is the one {@code BatchWriteBuilder.newCommit()} of Paimon 1.4.2 makes (the
 * overwrite, empty commits ignored unless {@code snapshot.ignore-empty-commit} says otherwise,
 * identifier {@link BatchWriteBuilder#COMMIT_IDENTIFIER}), with a user this class names: the
 * builder keeps its own user to itself.
 *
 * <p><b>Thread-safety:</b> stateless; called on the driver.
 */
public final class BatchCommits {

    private static final Logger LOG = LoggerFactory.getLogger(BatchCommits.class);

    private BatchCommits() {}

    /**
     * A commit user for one batch write of {@code table}, used by no other commit: a random UUID,
     * after the table's {@code commit.user-prefix} when set (as Paimon names a batch write's user).
     */
    public static String newUser(FileStoreTable table) {
        return CoreOptions.createCommitUser(Options.fromMap(table.options()));
    }

    /**
     * Commits {@code messages} to {@code table} as {@code user}, once.
     *
     * @param overwrite the partition spec to overwrite (empty: the whole table), or null to append
     * @throws Exception what Paimon's commit throws; the snapshot may have been published (see {@link #abort})
     */
    public static void commit(FileStoreTable table, String user, Map<String, String> overwrite, List<CommitMessage> messages)
            throws Exception {
        InnerTableCommit commit = table.newCommit(user).withOverwrite(overwrite);
        commit.ignoreEmptyCommit(
                Options.fromMap(table.options()).getOptional(CoreOptions.SNAPSHOT_IGNORE_EMPTY_COMMIT).orElse(true));
        try (BatchTableCommit batch = commit) {
            batch.commit(messages);
        }
    }

    /**
     * Deletes the files of {@code messages} unless a snapshot of {@code user} holds the write's
     * commit; a commit of {@code user} that threw after publishing keeps its files.
     *
     * @return whether the files were deleted
     * @throws Exception what reading the snapshots or deleting throws; when the snapshots cannot be
     *     read nothing is deleted
     */
    public static boolean abort(FileStoreTable table, String user, List<CommitMessage> messages) throws Exception {
        Optional<Snapshot> published = UserSnapshots.holding(table, user, BatchWriteBuilder.COMMIT_IDENTIFIER);
        if (published.isPresent()) {
            LOG.warn("not aborting the write of {} by commit user {}: its commit published snapshot {} before it failed,"
                    + " the {} messages' files are the table's", table.fullName(), user, published.get().id(), messages.size());
            return false;
        }
        MessageFiles.delete(table, messages);
        return true;
    }
}
