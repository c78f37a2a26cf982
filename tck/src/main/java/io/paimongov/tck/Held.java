package io.paimongov.tck;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one allocator of the provider has handed out and not taken back, counted by the kit at its
 * wrapper ({@link ObservedProvider}): pages (at their sizes) and reserved bytes. It is the kit's
 * own account of the memory a write holds, independent of the runtime's books, against which the
 * kit judges the runtime's metrics.
 *
 * <p>When it moves, and why that gives bounds: a grant is counted after the vendor's allocator
 * returned it, a release after the vendor's allocator took it back. The runtime accounts a request
 * before it asks the allocator and unaccounts a release after the allocator returned, so at every
 * moment its reserved bytes are at least {@link #now()}; with nothing running they are equal.
 *
 * <p>Thread-safe: every counter is atomic; {@link #now()} and {@link #peak()} move together in one
 * atomic step per grant or release, so a peak is what was held at one moment.
 */
final class Held {

    private final AtomicLong pageBytes = new AtomicLong();
    private final AtomicLong reservedBytes = new AtomicLong();
    private final AtomicLong now = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong granted = new AtomicLong();
    private final AtomicLong released = new AtomicLong();

    /** Pages of {@code bytes} handed out. */
    void pagesGranted(long bytes) {
        pageBytes.addAndGet(bytes);
        grant(bytes);
    }

    /** Pages of {@code bytes} taken back. */
    void pagesReleased(long bytes) {
        pageBytes.addAndGet(-bytes);
        release(bytes);
    }

    /** A reservation of {@code bytes} granted. */
    void bytesReserved(long bytes) {
        reservedBytes.addAndGet(bytes);
        grant(bytes);
    }

    /** {@code bytes} of reservations given back. */
    void bytesReleased(long bytes) {
        reservedBytes.addAndGet(-bytes);
        release(bytes);
    }

    private void grant(long bytes) {
        granted.addAndGet(bytes);
        peak.accumulateAndGet(now.addAndGet(bytes), Math::max);
    }

    private void release(long bytes) {
        // Counted as released before "now" drops: a bracket read of granted, then released, never
        // sees a release whose bytes it still counts as held.
        released.addAndGet(bytes);
        now.addAndGet(-bytes);
    }

    /** Bytes of pages handed out and not taken back. */
    long pageBytes() {
        return pageBytes.get();
    }

    /** Bytes of reservations granted and not given back. */
    long reservedBytes() {
        return reservedBytes.get();
    }

    /** Pages and reservations held now. */
    long now() {
        return now.get();
    }

    /** The most {@link #now()} has been. */
    long peak() {
        return peak.get();
    }

    /** Everything ever granted, pages and reservations; never goes down. */
    long granted() {
        return granted.get();
    }

    /** Everything ever taken back, pages and reservations; never goes down. */
    long released() {
        return released.get();
    }
}
