package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.metrics.WriterMetrics;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.operation.AbstractFileStoreWrite;

/**
 * Closes open writers in Paimon's write ({@link PaimonWriters}) and returns their reservations: the
 * least recently used one that may be closed, to make room for another (it must have taken at least
 * {@code governance.write.early-close-min-bytes} of input since it opened, or none at all, so that
 * closing does not roll a file per row); a writer the shared sort drained; every writer after a
 * batch prepareCommit. What a closed writer leaves (its message, its state to reopen) goes to {@link
 * ClosedWriters}.
 *
 * <p><b>Thread-safety:</b> none; the writing thread inside a write call.
 */
final class WriterEviction {

    private final OpenWriters open;
    private final ClosedWriters closed;
    private final AbstractFileStoreWrite<?> write;
    private final WriterMetrics metrics;
    private final long earlyCloseMinBytes;

    WriterEviction(OpenWriters open, ClosedWriters closed, AbstractFileStoreWrite<?> write, WriterMetrics metrics,
            long earlyCloseMinBytes) {
        this.open = open;
        this.closed = closed;
        this.write = write;
        this.metrics = metrics;
        this.earlyCloseMinBytes = earlyCloseMinBytes;
    }

    /**
     * Closes the least recently used open writer that may be closed: with {@code any}, any writer;
     * otherwise one that took at least the early-close minimum of input, or nothing.
     *
     * @return whether one was closed
     */
    boolean closeLeastRecent(boolean any) throws Exception {
        WriterKey least = open.leastRecent(any, earlyCloseMinBytes);
        if (least == null) {
            return false;
        }
        closeWriter(least, true, true);
        return true;
    }

    /**
     * Closes the writer of {@code key} after the shared sort gave it its rows; its message joins
     * those of the next prepareCommit. With {@code reopenable} (a streaming write, which may get
     * rows of this writer after the checkpoint) its state is kept to reopen it; a batch write's
     * drain is its last use, so the state, which holds the writer's file lists and index or
     * deletion-vector maintainers, is dropped at once.
     */
    void closeDrained(WriterKey key, boolean reopenable) throws Exception {
        closeWriter(key, false, reopenable);
    }

    private void closeWriter(WriterKey key, boolean early, boolean keepState) throws Exception {
        MemoryReservation reservation = open.remove(key);
        int files = 0;
        List<PaimonWriters.Closed> states = new ArrayList<>();
        for (int bucket : buckets(key)) {
            PaimonWriters.Closed c = PaimonWriters.close(write, key.partition(), bucket);
            states.add(c);
            files += c.newFiles();
            closed.addMessage(c);
        }
        closed.keepStates(key, states, keepState);
        if (reservation != null) {
            reservation.close();
        }
        open.recordOpen();
        if (early) {
            metrics.recordClosedEarly(files);
        }
    }

    /** The Paimon buckets behind {@code key}: its own, or every open one of its partition for bucket -1. */
    private List<Integer> buckets(WriterKey key) {
        if (key.bucket() >= 0) {
            return PaimonWriters.isOpen(write, key.partition(), key.bucket()) ? List.of(key.bucket()) : List.of();
        }
        var buckets = write.writers().get(key.partition());
        return buckets == null ? List.of() : new ArrayList<>(buckets.keySet());
    }

    /**
     * Closes every open writer after a batch prepareCommit prepared them (nothing is left to flush)
     * and returns their reservations.
     */
    void closePrepared() throws Exception {
        for (WriterKey key : open.keys()) {
            for (int bucket : buckets(key)) {
                var buckets = write.writers().get(key.partition());
                var container = buckets.remove(bucket);
                if (buckets.isEmpty()) {
                    write.writers().remove(key.partition());
                }
                container.writer.close();
            }
            open.remove(key).close();
        }
        metrics.recordWritersOpen(0);
    }
}
