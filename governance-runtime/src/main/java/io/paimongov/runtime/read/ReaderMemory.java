package io.paimongov.runtime.read;

import io.paimongov.runtime.write.EngineReservation;

/**
 * The reservation of one split reader's readers and merges (consumer kind {@code read}), counted
 * into the read's metrics. Closing gives back what is still held.
 *
 * <p>Not thread-safe: one split reader, one thread.
 */
final class ReaderMemory implements AutoCloseable {

    private final EngineReservation reservation;
    private final ReadMetrics metrics;

    ReaderMemory(EngineReservation reservation, ReadMetrics metrics) {
        this.reservation = reservation;
        this.metrics = metrics;
    }

    /** Holds {@code bytes} more if the budget and the engine allow it now; false leaves everything as it was. */
    boolean tryHold(long bytes) {
        if (bytes == 0 || reservation.tryGrow(bytes)) {
            metrics.reserved(bytes);
            return true;
        }
        return false;
    }

    /**
     * Holds {@code bytes} more, asking the write sharing the budget to make room first.
     *
     * @throws io.paimongov.spi.ResourceExhaustedException naming this reader when even that fails
     */
    void hold(long bytes) {
        reservation.grow(bytes);
        metrics.reserved(bytes);
    }

    void release(long bytes) {
        if (bytes > 0) {
            reservation.shrink(bytes);
            metrics.reserved(-bytes);
        }
    }

    String consumer() {
        return reservation.consumer();
    }

    @Override
    public void close() {
        long held = reservation.bytes();
        reservation.close();
        metrics.reserved(-held);
    }
}
