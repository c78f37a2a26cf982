package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.metrics.WriterMetrics;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryRow;

/**
 * The (partition, bucket) writers that have a writer of their own, each with the reservation of its
 * footprint and the input it took since it opened; the one owner of those reservations while the
 * writers are open. The writers-open metric follows every change made here.
 *
 * <p><b>Thread-safety:</b> none; the writing thread inside a write call (or the release, holding the
 * call lock).
 */
final class OpenWriters {

    /** An open writer: its reservation and the input bytes routed to it since it opened. */
    private static final class Open {
        final MemoryReservation reservation;
        long inputBytes;

        Open(MemoryReservation reservation) {
            this.reservation = reservation;
        }
    }

    /** Open writers, each stamped with its last use. */
    private final WriterTable<Open> open = new WriterTable<>();
    private final WriterMetrics metrics;

    OpenWriters(WriterMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * Counts {@code rowBytes} of input to the writer of ({@code partition}, {@code bucket}) and marks
     * it used, when it is open; {@code hash} is {@link WriterKey#hash} of them.
     *
     * @return whether it is open
     */
    boolean take(BinaryRow partition, int bucket, int hash, long rowBytes) {
        Open o = open.get(partition, bucket, hash);
        if (o == null) {
            return false;
        }
        o.inputBytes += rowBytes;
        return true;
    }

    /** Counts {@code rowBytes} to the writer of {@code key}, which was just opened. */
    void takeFirst(WriterKey key, long rowBytes) {
        open.get(key.partition(), key.bucket()).inputBytes += rowBytes;
    }

    /** Opens the writer of {@code key} holding {@code reservation}, which it owns from now on. */
    void add(WriterKey key, MemoryReservation reservation) {
        open.put(key, new Open(reservation));
        metrics.recordWritersOpen(open.size());
    }

    /**
     * The least recently used open writer that may be closed: with {@code any}, any; otherwise one
     * that took no input or at least {@code minBytes} since it opened. Null when none may.
     */
    WriterKey leastRecent(boolean any, long minBytes) {
        return open.leastRecent(o -> any || o.inputBytes == 0 || o.inputBytes >= minBytes);
    }

    /** Removes the writer of {@code key}; its reservation, for the caller to close, or null when it was not open. */
    MemoryReservation remove(WriterKey key) {
        Open o = open.remove(key);
        return o == null ? null : o.reservation;
    }

    /** Records the writers open now in the metrics. */
    void recordOpen() {
        metrics.recordWritersOpen(open.size());
    }

    /** Writers open now. */
    int size() {
        return open.size();
    }

    /** The keys of the open writers (a copy). */
    List<WriterKey> keys() {
        return open.keys();
    }

    /** Releases the writers Paimon no longer keeps: those not in {@code active} (partition to buckets). */
    void releaseClosed(Map<BinaryRow, List<Integer>> active) {
        open.removeIf(
                (key, o) -> {
                    List<Integer> buckets = active.get(key.partition());
                    boolean kept = buckets != null && (key.bucket() < 0 || buckets.contains(key.bucket()));
                    if (!kept) {
                        o.reservation.close();
                    }
                    return !kept;
                });
        metrics.recordWritersOpen(open.size());
    }

    /** Releases every writer's reservation. */
    void releaseAll() {
        open.values().forEach(o -> o.reservation.close());
        open.clear();
        metrics.recordWritersOpen(0);
    }
}
