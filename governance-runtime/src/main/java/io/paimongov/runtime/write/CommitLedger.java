package io.paimongov.runtime.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The write's prepared commit messages that are still its own ({@link Handoff}s neither committed
 * nor handed off: the release aborts them and deletes their files), and the names of the data files
 * in messages that were committed or handed off, which an abort never deletes.
 *
 * <p><b>Thread-safety:</b> none; guarded by the write's call lock (prepareCommit, commit, hand-off
 * and the release all hold it).
 */
final class CommitLedger {

    /** Prepared messages neither committed nor handed off yet. */
    private final List<Handoff> pending = new ArrayList<>();
    /** Names of data files in messages that were committed or handed off. */
    private final Set<String> published = new HashSet<>();

    /** prepareCommit made {@code prepared}: the write owns its messages. */
    void prepared(Handoff prepared) {
        pending.add(prepared);
    }

    /** {@code handoff}'s messages, whose data files are {@code fileNames}, left the write's care. */
    void published(Handoff handoff, Collection<String> fileNames) {
        pending.remove(handoff);
        published.addAll(fileNames);
    }

    /** A commit of messages with {@code fileNames} failed and did not land: they are the write's again. */
    void unpublished(Collection<String> fileNames) {
        published.removeAll(fileNames);
    }

    /** Whether the data file {@code fileName} is in a message that was committed or handed off. */
    boolean isPublished(String fileName) {
        return published.contains(fileName);
    }

    /** The messages the write still owns (a read-only view, for the release). */
    List<Handoff> pending() {
        return Collections.unmodifiableList(pending);
    }

    /** Forgets the pending messages once the release has aborted them. */
    void clearPending() {
        pending.clear();
    }
}
