package io.paimongov.spi;

/**
 * How an engine asks a write to give memory back: the runtime hands one to the allocator ({@link
 * SegmentAllocator#bindRelief}) when the write opens. An engine that spills cooperatively (Spark's
 * {@code MemoryConsumer.spill}) calls it when another consumer needs memory.
 *
 * <p>What it does: returns the write's cached pages to the engine, and, when no call of the write
 * is under way on another thread, makes Paimon flush or spill the writers holding most memory and
 * returns their pages too. It never allocates and never blocks on the writing thread: if a write
 * call is running on another thread, only cached pages go back.
 *
 * <p><b>Thread-safety:</b> callable from any thread, also re-entrantly from inside the allocator
 * on the writing thread (Spark calls {@code spill} on the requesting thread). <b>May throw:</b>
 * what a flush throws (an I/O error, {@link WriteCancelledException}); an engine should treat that
 * as nothing freed.
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
