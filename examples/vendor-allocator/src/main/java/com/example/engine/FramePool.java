package com.example.engine;

/**
 * The example engine's memory manager: a fixed number of bytes that it lends out as equal frames
 * ({@code byte[]}) and as plain byte reservations, counting both. It stands for whatever an engine
 * already has (a buffer pool, a slab allocator, a task memory manager); nothing in it knows about
 * governance.
 *
 * <p>Thread-safe: every method holds the pool's monitor.
 */
public final class FramePool {

    private final long capacity;
    private long lent;

    /** @throws IllegalArgumentException when {@code capacityBytes} is not positive */
    public FramePool(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("capacityBytes must be positive: " + capacityBytes);
        }
        this.capacity = capacityBytes;
    }

    /** A new frame of {@code size} bytes, or null when the pool has less than that left. */
    public synchronized byte[] lend(int size) {
        if (!reserve(size)) {
            return null;
        }
        return new byte[size];
    }

    /** Takes back a frame that {@link #lend} returned. */
    public synchronized void giveBack(byte[] frame) {
        release(frame.length);
    }

    /** Counts {@code bytes} as taken if they fit, all or nothing. */
    public synchronized boolean reserve(long bytes) {
        if (bytes < 0 || bytes > capacity - lent) {
            return false;
        }
        lent += bytes;
        return true;
    }

    /** Gives back {@code bytes} that {@link #reserve} counted. */
    public synchronized void release(long bytes) {
        if (bytes < 0 || bytes > lent) {
            throw new IllegalStateException("released " + bytes + " bytes, but only " + lent + " are lent");
        }
        lent -= bytes;
    }

    /** Bytes lent now, frames and reservations together: the engine's own counter. */
    public synchronized long usedBytes() {
        return lent;
    }

    public long capacityBytes() {
        return capacity;
    }
}
