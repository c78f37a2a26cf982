package io.paimongov.connector.spark.write;

import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;

/**
 * Whether a commit that threw had published its snapshot, judged as Paimon's own exactly-once
 * filter ({@code FileStoreCommit.filterCommitted}) judges a commit to be retried: by the latest
 * snapshot of the commit user. A user's commit identifiers only grow, so that snapshot holds
 * identifier {@code i} or a later one exactly when a commit of {@code i} (or after it) was
 * published.
 *
 * <p>The judgement is as strong as Paimon's exactly-once: a snapshot of the user that expired
 * between the commit and the look (more than {@code snapshot.num-retained.min} commits by others in
 * between) is not found, for Paimon's filter as for this class.
 *
 * <p><b>Thread-safety:</b> stateless. <b>May throw:</b> what reading the snapshots throws.
 */
final class UserSnapshots {

    private UserSnapshots() {}

    /**
     * The latest snapshot of {@code user} in {@code table} when it holds commit identifier {@code
     * identifier} (or a later one): the commit of {@code identifier} was published; empty when it
     * was not.
     */
    static Optional<Snapshot> holding(FileStoreTable table, String user, long identifier) {
        return table.snapshotManager().latestSnapshotOfUser(user).filter(s -> s.commitIdentifier() >= identifier);
    }
}
