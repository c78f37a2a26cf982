package io.paimongov.cli;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Tells whether another writer changed the demo's table while the run had it open. The run's
 * model is the table as the run found it plus the run's own rows, so any other writer's commit in
 * between, into any bucket, leaves the model unable to say what the table should hold: the
 * read-back would call a table that merged both writes "verified" or "mismatched" by chance.
 *
 * <p>The snapshots since the run opened the table are read by commit user: the run's own commits
 * (its write's, or its engine job's committer's) all carry one; compactions change no content and
 * are left out. Two users, or any user when the run committed nothing, is another writer. A
 * governed write also refuses to commit over another writer of its buckets ({@link
 * io.paimongov.runtime.write.ConcurrentWriterException}); this check covers the writer that
 * commits after the run's commit, and the engines' committers, which make no such check.
 *
 * <p>Stateless and thread-safe.
 */
final class OtherWriters {

    private OtherWriters() {}

    /** Another writer's commit, found: the message names the snapshots and their commit users. */
    static final class Found extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Found(String message) {
            super(message);
        }
    }

    /** The table's latest snapshot id, null before its first commit: where the run's window starts. */
    static Long latest(FileStoreTable table) {
        return table.snapshotManager().latestSnapshotIdFromFileSystem();
    }

    /**
     * Throws {@link Found} when a snapshot since {@code before} comes from another writer.
     *
     * @param committed whether the run committed (else every content snapshot is another's)
     */
    static void check(FileStoreTable table, Long before, boolean committed) throws IOException {
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotIdFromFileSystem();
        if (latest == null) {
            return;
        }
        Map<String, Long> firstByUser = new LinkedHashMap<>();
        for (long id = before == null ? Snapshot.FIRST_SNAPSHOT_ID : before + 1; id <= latest; id++) {
            Snapshot s;
            try {
                s = snapshots.tryGetSnapshot(id);
            } catch (FileNotFoundException expired) {
                continue;
            }
            if (s.commitKind() != Snapshot.CommitKind.COMPACT && s.commitKind() != Snapshot.CommitKind.ANALYZE) {
                firstByUser.putIfAbsent(s.commitUser(), s.id());
            }
        }
        if (firstByUser.size() > 1 || !committed && !firstByUser.isEmpty()) {
            StringBuilder who = new StringBuilder();
            firstByUser.forEach((user, id) -> who.append(who.length() == 0 ? "" : ", ").append("snapshot ").append(id)
                    .append(" by commit user ").append(user));
            throw new Found("another writer committed to " + table.fullName() + " while this run had it open ("
                    + who + (committed ? "; one of them is this run's" : "; this run committed nothing") + "): the"
                    + " run's model cannot say what the table should hold, so it was not checked. Paimon allows one"
                    + " writer per bucket; run the demo on a warehouse no other writer uses at the same time");
        }
    }
}
