package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * What writers closed before prepareCommit leave behind: their commit messages, kept for the next
 * prepareCommit and charged to the budget ({@link WriteFootprint#closedMessageBytes()} per data
 * file they name), and, for writers that may get rows again, their Paimon state, from which they
 * reopen where they left off ({@link PaimonWriters.Closed}). The one owner of both and of the
 * messages' charge.
 *
 * <p><b>Thread-safety:</b> none; the writing thread inside a write call (or the release, holding the
 * call lock).
 */
final class ClosedWriters {

    private final MemoryBudget budget;
    private final BufferFlushes flushes;
    private final long bytesPerFile;
    /** Writers closed early, by key: reopened from here. */
    private final Map<WriterKey, List<PaimonWriters.Closed>> closed = new HashMap<>();
    /** Messages of writers closed since the last prepareCommit. */
    private final List<CommitMessage> closedMessages = new ArrayList<>();
    /** What {@link #closedMessages} keep on the heap ({@link #bytesPerFile} per file); made on first use. */
    private MemoryReservation keptMessages;

    ClosedWriters(MemoryBudget budget, BufferFlushes flushes, long bytesPerFile) {
        this.budget = budget;
        this.flushes = flushes;
        this.bytesPerFile = bytesPerFile;
    }

    /** Keeps the message of a Paimon writer just closed and charges what it holds. */
    void addMessage(PaimonWriters.Closed c) throws Exception {
        closedMessages.add(c.message());
        chargeKept(Math.max(1, c.newFiles()) * bytesPerFile);
    }

    /** Keeps the states of the writer of {@code key}, closed now, to reopen it; or, without {@code keep}, drops any. */
    void keepStates(WriterKey key, List<PaimonWriters.Closed> states, boolean keep) {
        if (keep) {
            closed.put(key, states);
        } else {
            closed.remove(key);
        }
    }

    /** Reopens in {@code write} the Paimon writers of {@code key} closed early, if any. */
    void reopen(WriterKey key, AbstractFileStoreWrite<?> write) throws Exception {
        List<PaimonWriters.Closed> states = closed.remove(key);
        if (states != null) {
            for (PaimonWriters.Closed state : states) {
                PaimonWriters.reopen(write, state);
            }
        }
    }

    /**
     * Charges {@code bytes} of a kept commit message: from the budget's free room, else after
     * making room as {@link BufferFlushes#reclaim} does; a budget that cannot hold it fails the
     * write with the numbers.
     */
    private void chargeKept(long bytes) throws Exception {
        if (keptMessages == null) {
            keptMessages = budget.newReservation(ConsumerKind.COMMIT, "commit messages of closed writers");
        }
        if (!keptMessages.tryGrow(bytes)) {
            flushes.reclaim(bytes);
            keptMessages.grow(bytes);
        }
    }

    /** The states of the writers closed early and kept to reopen (a copy). */
    List<PaimonWriters.Closed> states() {
        List<PaimonWriters.Closed> all = new ArrayList<>();
        closed.values().forEach(all::addAll);
        return all;
    }

    /** Takes the messages of writers closed since the last call; their charge goes with them. */
    List<CommitMessage> takeMessages() {
        List<CommitMessage> taken = new ArrayList<>(closedMessages);
        closedMessages.clear();
        if (keptMessages != null) {
            keptMessages.shrink(keptMessages.bytes());
        }
        return taken;
    }

    /**
     * Drops the states of writers closed early: after a batch write's prepareCommit no writer is
     * reopened.
     */
    void forget() {
        closed.clear();
    }

    /** Releases the charge of messages not taken (a write given up drops them). */
    void release() {
        if (keptMessages != null) {
            keptMessages.close();
            keptMessages = null;
        }
    }
}
