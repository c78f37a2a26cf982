package io.paimongov.runtime.write;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Finds another writer of this write's buckets ({@link ConcurrentWriterException} says which
 * writes conflict and why). {@link #beforeSnapshot} runs before the commit begins (the usual case:
 * the other writer committed first) and again as Paimon's commit is about to write its snapshot
 * file, on every attempt: the snapshots between this write's base and the one it is about to write
 * are all there, and a snapshot another writer writes after this check takes the id this attempt
 * wants, so the attempt fails and Paimon's retry comes back here. So of two governed writes of one
 * bucket, the second to commit never publishes (when both commit at the same moment, Paimon first
 * retries the refused attempt with its back-off, up to {@code commit.max-retries}, about ten
 * seconds); a writer that does not check (plain Paimon, another engine's job) and commits after
 * this write is not seen by it.
 *
 * <p>The base is the latest snapshot when the write opened, then the snapshot of each commit of
 * the write ({@link #committed}): a stream write commits many times, and another writer's commit
 * between two of them conflicts as much.
 *
 * <p><b>Thread-safety:</b> called under the write's call lock (from the commit).
 */
final class ConcurrentWriters {

    private final OpenedWrite w;
    private Long base;

    ConcurrentWriters(OpenedWrite write) {
        this.w = write;
        this.base = write.table.snapshotManager().latestSnapshotIdFromFileSystem();
    }

    /** Whether this write's commits are checked: a primary-key table of fixed or dynamic buckets, not an overwrite. */
    private boolean checks() {
        return !w.overwrite && switch (w.tableMode.kind()) {
            case PRIMARY_KEY_FIXED, PRIMARY_KEY_DYNAMIC, PRIMARY_KEY_CROSS_PARTITION -> true;
            default -> false;
        };
    }

    /**
     * Before the commit of {@code messages} writes snapshot {@code id}.
     *
     * @throws IOException carrying a {@link ConcurrentWriterException} (Paimon's commit passes on
     *     what its file system throws) when another writer's snapshot before {@code id} conflicts,
     *     or when the snapshots cannot be read
     */
    void beforeSnapshot(long id, List<CommitMessage> messages) throws IOException {
        if (!checks() || messages.isEmpty()) {
            return;
        }
        boolean byPartition = w.tableMode.kind() != TableMode.Kind.PRIMARY_KEY_FIXED;
        boolean any = w.tableMode.kind() == TableMode.Kind.PRIMARY_KEY_CROSS_PARTITION;
        Set<String> ours = new TreeSet<>();
        for (CommitMessage m : messages) {
            ours.add(where(m.partition(), m.bucket(), byPartition));
        }
        SnapshotManager snapshots = w.table.snapshotManager();
        long first = base == null ? Snapshot.FIRST_SNAPSHOT_ID : base + 1;
        for (long other = first; other < id; other++) {
            Snapshot s;
            try {
                s = snapshots.tryGetSnapshot(other);
            } catch (FileNotFoundException expired) {
                continue;
            }
            if (w.commitUser.equals(s.commitUser()) || s.commitKind() == Snapshot.CommitKind.COMPACT
                    || s.commitKind() == Snapshot.CommitKind.ANALYZE) {
                continue;
            }
            Set<String> theirs = written(s, byPartition);
            List<String> overlap = new ArrayList<>();
            for (String place : theirs) {
                if (any || ours.contains(place)) {
                    overlap.add(place);
                }
            }
            if (!overlap.isEmpty()) {
                ConcurrentWriterException conflict = new ConcurrentWriterException(w.table.fullName(), s.id(),
                        s.commitUser(), overlap, byPartition ? "partitions" : "buckets");
                throw new IOException(conflict.getMessage(), conflict);
            }
        }
    }

    /** The write's commit wrote snapshot {@code id}: later commits are checked from there. */
    void committed(long id) {
        base = base == null ? id : Math.max(base, id);
    }

    /** The (partition, bucket)s, or partitions, that {@code s} added files to. */
    private Set<String> written(Snapshot s, boolean byPartition) throws IOException {
        ManifestList lists = w.table.store().manifestListFactory().create();
        ManifestFile manifests = w.table.store().manifestFileFactory().create();
        Set<String> places = new TreeSet<>();
        for (ManifestFileMeta meta : lists.readWithIOException(s.deltaManifestList())) {
            for (ManifestEntry entry : manifests.readWithIOException(meta.fileName(), meta.fileSize())) {
                places.add(where(entry.partition(), entry.bucket(), byPartition));
            }
        }
        return places;
    }

    private String where(BinaryRow partition, int bucket, boolean byPartition) {
        String p = w.table.partitionKeys().isEmpty() ? "the table"
                : w.table.store().pathFactory().getPartitionString(partition).replaceAll("/$", "");
        return byPartition ? p : p + " bucket " + bucket;
    }
}
