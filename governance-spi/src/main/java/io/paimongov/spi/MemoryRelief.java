package io.paimongov.spi;

/**
 * How an engine asks a write to give memory back: the runtime hands one to the allocator ({@link
 * SegmentAllocator#bindRelief}, clause ALLOC.9 of docs/spi.md) when the write opens. What it does
 * is clause LOCK.4: cached pages always, a flush or spill only when the write's call lock is free
 * or held by the caller.
 *
 * <p><b>Thread-safety:</b> any thread, also re-entrantly from inside the allocator (LOCK.4).
 * <b>May throw:</b> what a flush throws; treat it as nothing freed (LOCK.4).
 */
@FunctionalInterface
public interface MemoryRelief {

    /**
     * Tries to give at least {@code bytes} back to the engine.
     *
     * @return the bytes given back to the engine (released through the allocator), maybe 0
     */
    long relieve(long bytes);

    /** A relief that frees nothing. */
    MemoryRelief NONE = bytes -> 0;
}
