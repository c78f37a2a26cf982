package io.paimongov.allocator.support;

/**
 * The counters of one {@link PagedAllocator}: bytes of pages and of reservations, their sum and its
 * peak, the closed state, the leak found at close and the releases the engine did not confirm. No
 * engine calls; every change is a number the allocator already had the engine confirm.
 *
 * <p><b>Thread-safety:</b> not thread-safe; every method runs under the allocator's lock, except
 * {@link #used()}, which any thread may read without it (a volatile read).
 */
final class PageLedger {

    private final long capacity;
    private long pageBytes;
    private long reserved;
    private long peak;
    private long leaked;
    private volatile long used;
    private boolean closed;
    private long releaseFailures;
    private Throwable firstReleaseFailure;

    PageLedger(long capacity) {
        this.capacity = capacity;
    }

    /**
     * Whether {@code bytes} fit in the room left. Compared with {@code capacity - used}, which
     * cannot overflow (0 <= used <= capacity): {@code used + bytes} wraps to a negative number for a
     * request near {@link Long#MAX_VALUE}, which would then pass the check.
     */
    boolean fits(long bytes) {
        return bytes <= capacity - used;
    }

    void pagesTaken(long bytes) {
        pageBytes += bytes;
        count(bytes);
    }

    void pagesGiven(long bytes) {
        pageBytes -= bytes;
        count(-bytes);
    }

    void reserved(long bytes) {
        reserved += bytes;
        count(bytes);
    }

    void unreserved(long bytes) {
        reserved -= bytes;
        count(-bytes);
    }

    /** The engine confirmed it holds nothing of the allocator any more: every counter but the peak to 0. */
    void settled() {
        pageBytes = 0;
        reserved = 0;
        count(-used);
    }

    private void count(long delta) {
        long now = used + delta;
        used = now;
        if (now > peak) {
            peak = now;
        }
    }

    long used() {
        return used;
    }

    long peak() {
        return peak;
    }

    long pageBytes() {
        return pageBytes;
    }

    long reservedBytes() {
        return reserved;
    }

    boolean isClosed() {
        return closed;
    }

    /** Marks the ledger closed and keeps what was held then as the leak; returns it. */
    long close() {
        closed = true;
        leaked = used;
        return leaked;
    }

    long leaked() {
        return leaked;
    }

    void releaseFailed(Throwable e) {
        releaseFailures++;
        if (firstReleaseFailure == null) {
            firstReleaseFailure = e;
        }
    }

    long releaseFailures() {
        return releaseFailures;
    }

    Throwable firstReleaseFailure() {
        return firstReleaseFailure;
    }
}
