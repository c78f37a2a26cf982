package io.paimongov.runtime.write;

import io.paimongov.spi.GovernanceClosedException;
import java.util.List;
import org.apache.paimon.fs.Path;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * The {@link PreparedCommit} of one prepareCommit: its messages, the data files created for them,
 * and who owns them. While the write owns them they are on its pending list, and the release
 * aborts them and deletes their files; {@link #commit()} and {@link #handOff()} take them out of
 * the write's care first. A data file that a committed or handed-off message names is never
 * deleted by a later abort (a stream compaction running at one prepare may be reported in a later
 * one).
 *
 * <p><b>Thread-safety:</b> {@link #commit()} and {@link #handOff()} take the write's call lock;
 * {@link #abortIfOwned} runs under it (from the release or a failed commit). {@code owned} and
 * {@code aborted} are guarded by the call lock.
 */
final class Handoff implements PreparedCommit {

    private final OpenedWrite w;
    private final WriteCancellation cancellation;
    private final CommitSettlement settlement;
    private final List<CommitMessage> messages;
    private final List<Path> files;
    private final long identifier;
    /** Guarded by callLock. */
    private boolean owned = true;
    /** Guarded by callLock. */
    private boolean aborted;

    Handoff(
            OpenedWrite write,
            WriteCancellation cancellation,
            CommitSettlement settlement,
            List<CommitMessage> messages,
            List<Path> files,
            long identifier) {
        this.w = write;
        this.cancellation = cancellation;
        this.settlement = settlement;
        this.messages = List.copyOf(messages);
        this.files = files;
        this.identifier = identifier;
    }

    @Override
    public List<CommitMessage> messages() {
        return messages;
    }

    long identifier() {
        return identifier;
    }

    /** The data files the messages add, where this write created them. */
    List<Path> addedFiles() {
        List<String> names = CommitFiles.names(messages);
        return files.stream().filter(f -> names.contains(f.getName())).toList();
    }

    @Override
    public void commit() throws Exception {
        w.callLock.lock();
        try {
            take();
            try {
                settlement.commit(this);
            } catch (Exception | Error e) {
                if (w.context.isCancelled()) {
                    throw cancellation.cancelledCommit(e);
                }
                // Thrown through Paimon's commit, which wraps it; the commit published nothing.
                ConcurrentWriterException concurrent = WriteFailures.find(e, ConcurrentWriterException.class);
                if (concurrent != null) {
                    throw concurrent;
                }
                throw e;
            }
        } finally {
            w.callLock.unlock();
        }
    }

    @Override
    public List<CommitMessage> handOff() {
        w.callLock.lock();
        try {
            take();
            return messages;
        } finally {
            w.callLock.unlock();
        }
    }

    /** Takes the messages out of the write's care: it will neither abort nor delete them. */
    private void take() {
        ensureOwned();
        owned = false;
        w.commits.published(this, CommitFiles.names(messages));
    }

    /** A cancelled write's messages were aborted: say so as the cancellation. */
    private void ensureOwned() {
        cancellation.throwIfCancelled();
        if (!owned) {
            throw new GovernanceClosedException(
                    aborted
                            ? "the write is closed; these commit messages were aborted"
                            : "these commit messages were already committed or handed off");
        }
    }

    /** Aborts the messages if the write still owns them (the release). */
    Exception abortIfOwned(Exception first) {
        return abortIfOwned(first, false);
    }

    /**
     * Their own commit failed and did not land: the messages are the write's again, and are aborted
     * with their files deleted even though they were taken.
     */
    Exception abortFailedCommit() {
        owned = true;
        w.commits.unpublished(CommitFiles.names(messages));
        return abortIfOwned(null, true);
    }

    /** @param failedCommit the messages' own commit failed: their files are deleted even though taken */
    private Exception abortIfOwned(Exception first, boolean failedCommit) {
        if (!owned) {
            return first;
        }
        owned = false;
        aborted = true;
        try (var commit = w.table.newBatchWriteBuilder().newCommit()) {
            commit.abort(messages);
        } catch (Exception e) {
            first = WriteRelease.add(first, e);
        }
        // A stream compaction running at this prepare may be reported in a later, published one.
        List<Path> mine = failedCommit ? files : files.stream().filter(f -> !w.commits.isPublished(f.getName())).toList();
        return WriteRelease.deleteFiles(w.fileIO, mine, first);
    }
}
