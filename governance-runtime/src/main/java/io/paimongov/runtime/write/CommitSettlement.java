package io.paimongov.runtime.write;

import io.paimongov.runtime.write.OpenedWrite.Mode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.fs.Path;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a {@link Handoff}'s messages and, when Paimon's commit throws, settles what happened
 * before returning: the table's snapshots since the commit began are read, and a snapshot with
 * this write's commit user and the commit's identifier means the commit landed (it then returns
 * normally, the error logged, and the manifest files of Paimon's failed attempts that no snapshot
 * references are deleted, and so is the output of a compaction whose own commit failed after the
 * new files landed); none means it did not land, and the commit's data files and the
 * manifest files its attempts wrote are deleted before the error is rethrown. Only when the
 * snapshots cannot be read are the files left, and the error says so.
 *
 * <p>A commit that succeeded after Paimon retried it (another committer took the snapshot id it
 * meant to write) leaves the manifest files of its lost attempts; they are deleted too, when no
 * snapshot since the commit began references them.
 *
 * <p>A batch commit uses the write's own commit user (not a builder's random one), so that a failed
 * commit can be looked for in the snapshots.
 *
 * <p><b>Thread-safety:</b> call holding the write's call lock (from {@link Handoff#commit()});
 * keeps no state of its own.
 */
final class CommitSettlement {

    private static final Logger LOG = LoggerFactory.getLogger(CommitSettlement.class);

    private final OpenedWrite w;
    /** Made when the write opens: its base is the table's latest snapshot then. */
    private final ConcurrentWriters concurrentWriters;

    CommitSettlement(OpenedWrite write) {
        this.w = write;
        this.concurrentWriters = new ConcurrentWriters(write);
    }

    /**
     * Commits {@code h}'s messages, which the caller has taken out of the write's care. Before each
     * snapshot the commit writes, another writer of the same buckets is looked for ({@link
     * ConcurrentWriters}); one found fails the commit before it publishes.
     */
    void commit(Handoff h) throws Exception {
        Long before = w.table.snapshotManager().latestSnapshotIdFromFileSystem();
        try {
            // Paimon retries a commit whose snapshot write throws (for seconds, with back-off): the
            // usual case, another writer that committed before this commit began, is found here.
            concurrentWriters.beforeSnapshot(before == null ? Snapshot.FIRST_SNAPSHOT_ID : before + 1, h.messages());
        } catch (IOException conflict) {
            Exception cleanup = h.abortFailedCommit();
            if (cleanup != null) {
                conflict.addSuppressed(cleanup);
            }
            throw conflict;
        }
        w.fileIO.startCommit(id -> concurrentWriters.beforeSnapshot(id, h.messages()));
        try {
            commitNow(h);
        } catch (Exception | Error e) {
            settle(h, e, before, w.fileIO.endCommit());
            return;
        }
        List<Path> manifests = w.fileIO.endCommit();
        if (w.fileIO.writtenSnapshotId() >= 0) {
            concurrentWriters.committed(w.fileIO.writtenSnapshotId());
        }
        removeFailedAttempts(before, manifests);
    }

    /**
     * After a commit that succeeded: Paimon retries a commit whose snapshot another committer took
     * first, and does not delete what the lost attempt wrote (its manifest lists, its delta and
     * merged manifests, its index manifest: "Skip clean up and try again"), so those are deleted here
     * when no snapshot since the commit began references them.
     */
    private void removeFailedAttempts(Long before, List<Path> manifests) {
        List<Path> lost = unreferenced(before, manifests);
        if (lost.isEmpty()) {
            return;
        }
        Exception cleanup = WriteRelease.deleteFiles(w.fileIO, lost, null);
        if (cleanup != null) {
            LOG.warn("cannot delete the manifest files of the lost attempts of the commit of '{}'", w.context.name(), cleanup);
        } else {
            LOG.info("the commit of '{}' lost a race to another committer and was retried; deleted the {} manifest"
                    + " files of its lost attempts", w.context.name(), lost.size());
        }
    }

    private void commitNow(Handoff h) throws Exception {
        if (w.mode == Mode.BATCH) {
            // Otherwise what BatchWriteBuilder.newCommit() makes.
            try (TableCommitImpl commit = w.table.newCommit(w.commitUser)) {
                commit.ignoreEmptyCommit(
                        Options.fromMap(w.table.options()).getOptional(CoreOptions.SNAPSHOT_IGNORE_EMPTY_COMMIT).orElse(true));
                commit.commit(h.messages());
            }
        } else {
            try (var commit = w.table.newStreamWriteBuilder().withCommitUser(w.commitUser).newCommit()) {
                commit.commit(h.identifier(), h.messages());
            }
        }
    }

    /**
     * A commit threw: returns when its snapshot is in the table anyway; otherwise deletes what it
     * wrote (data files, manifests) and rethrows. Undecided (the snapshots cannot be read):
     * rethrows with the reason added, deleting nothing.
     */
    private void settle(Handoff h, Throwable error, Long before, List<Path> manifests) throws Exception {
        boolean landed;
        try {
            landed = landed(before, h.identifier());
        } catch (IOException | RuntimeException e) {
            error.addSuppressed(e);
            LOG.warn("the commit of '{}' failed and whether it landed cannot be told: its files are kept", w.context.name(), error);
            throw rethrow(error);
        }
        if (landed) {
            LOG.warn("the commit of '{}' threw, but its snapshot is in the table: the commit is published", w.context.name(), error);
            // Paimon commits a message's new files and its compaction as two snapshots: when the
            // compaction's commit conflicts (another committer compacted the same files), the new
            // files landed and the compaction's output is referenced by no snapshot.
            List<Path> written = new ArrayList<>(manifests);
            written.addAll(h.addedFiles());
            Exception cleanup = WriteRelease.deleteFiles(w.fileIO, unreferenced(before, written), null);
            if (cleanup != null) {
                LOG.warn("cannot delete the files of the failed attempts of the commit of '{}'", w.context.name(), cleanup);
            }
            return;
        }
        Exception cleanup = h.abortFailedCommit();
        cleanup = WriteRelease.deleteFiles(w.fileIO, manifests, cleanup);
        if (cleanup != null) {
            error.addSuppressed(cleanup);
        }
        LOG.warn("the commit of '{}' failed and did not land: its data and manifest files were deleted", w.context.name());
        throw rethrow(error);
    }

    /** Whether a snapshot after {@code before} carries this write's commit user and {@code identifier}. */
    private boolean landed(Long before, long identifier) throws IOException {
        SnapshotManager snapshots = w.table.snapshotManager();
        Long latest = snapshots.latestSnapshotIdFromFileSystem();
        if (latest == null) {
            return false;
        }
        for (long id = first(before); id <= latest; id++) {
            Snapshot s;
            try {
                s = snapshots.tryGetSnapshot(id);
            } catch (FileNotFoundException expired) {
                continue;
            }
            if (w.commitUser.equals(s.commitUser()) && s.commitIdentifier() == identifier) {
                return true;
            }
        }
        return false;
    }

    /**
     * The files among {@code written} (manifest files, and data files of the commit's messages) that
     * no snapshot since {@code before} references: what Paimon's failed attempts of a commit that
     * finally landed left behind. A data file a snapshot since then references was added by its
     * delta (or changelog) manifests. Nothing when the snapshots cannot be read.
     */
    private List<Path> unreferenced(Long before, List<Path> written) {
        if (written.isEmpty()) {
            return List.of();
        }
        try {
            Set<String> used = new HashSet<>();
            SnapshotManager snapshots = w.table.snapshotManager();
            ManifestList lists = w.table.store().manifestListFactory().create();
            ManifestFile manifests = w.table.store().manifestFileFactory().create();
            Long latest = snapshots.latestSnapshotIdFromFileSystem();
            for (long id = first(before); latest != null && id <= latest; id++) {
                Snapshot s = snapshots.tryGetSnapshot(id);
                used.add(s.baseManifestList());
                used.add(s.deltaManifestList());
                used.add(s.changelogManifestList());
                used.add(s.indexManifest());
                lists.readAllManifests(s).forEach(m -> used.add(m.fileName()));
                List<ManifestFileMeta> added = new ArrayList<>(lists.readDeltaManifests(s));
                added.addAll(lists.readChangelogManifests(s));
                for (ManifestFileMeta m : added) {
                    used.add(m.fileName());
                    manifests.read(m.fileName(), m.fileSize()).forEach(e -> used.add(e.file().fileName()));
                }
            }
            return written.stream().filter(p -> !used.contains(p.getName())).toList();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot tell which files the commit of '{}' left unused; keeping them", w.context.name(), e);
            return List.of();
        }
    }

    /** The first snapshot id the commit could have made. */
    private static long first(Long before) {
        return before == null ? Snapshot.FIRST_SNAPSHOT_ID : before + 1;
    }

    private static Exception rethrow(Throwable error) {
        if (error instanceof Error e) {
            throw e;
        }
        return (Exception) error;
    }
}
