package io.paimongov.allocator.support;

import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * A {@link PagedAllocator} over an engine whose page call does its own accounting (an Arrow
 * allocator, Flink's memory manager): the engine counts a page when it makes it and uncounts it
 * when it takes it back, so admitting pages asks the engine nothing ({@link #admitPages} checks
 * only what the subclass says, by default nothing) and pages are taken under the allocator's lock,
 * which then serialises every change of the write's accounting in the engine.
 *
 * <p>A vendor implements the page hooks ({@link #takePages}, {@link #segment}, {@link #givePages})
 * and the two byte hooks for reservations, and may override {@link #admitPages}, {@link
 * #isRefusal} and the close hooks. Thread-safe, as {@link PagedAllocator} is.
 *
 * @param <P> the engine's handle of one page
 */
public abstract class EnginePagedAllocator<P> extends PagedAllocator<P> {

    /** As {@link HeapPagedAllocator#HeapPagedAllocator(String, String, int, long, Object, LeakCounter)}. */
    protected EnginePagedAllocator(String name, String requester, int pageSize, long capacity, Object lock, LeakCounter leaks) {
        super(name, requester, pageSize, capacity, lock, leaks);
    }

    /** As the full form, recording leaks nowhere. */
    protected EnginePagedAllocator(String name, String requester, int pageSize, long capacity, Object lock) {
        this(name, requester, pageSize, capacity, lock, null);
    }

    /**
     * Takes {@code count} pages from the engine, under {@link #lock}, appending each handle to {@code
     * into} as soon as it is taken. May throw: the pages already in {@code into} are then given back.
     */
    @Override
    protected abstract void takePages(int count, List<P> into) throws Exception;

    /** The Paimon segment over {@code page}'s memory ({@link OffHeapSegments#wrap} for native pages). */
    @Override
    protected abstract MemorySegment segment(P page);

    /**
     * Gives {@code pages} back to the engine. Throws only when the engine did not confirm the
     * release: the pages then stay live and counted, {@link #releaseFailures()} counts it, and {@link
     * #close()} gives them back again; so a page the engine did take back before the throw must be
     * skipped, without error, when it is given again.
     */
    @Override
    protected abstract void givePages(List<P> pages);

    /**
     * Whether {@code bytes} of pages may be asked of the engine now; the default is true, the write's
     * capacity being the only check. A subclass may check the engine's headroom, so that a request
     * the engine would refuse never shows in its counters.
     */
    @Override
    protected boolean admitPages(long bytes) {
        return true;
    }

    /** Whether {@code failure}, thrown by {@link #takePages}, is the engine refusing memory; default false. */
    @Override
    protected boolean isRefusal(Throwable failure) {
        return false;
    }

    /** The engine uncounted the pages when it took them back in {@link #givePages}. */
    @Override
    final void unadmitPages(long bytes) {}

    @Override
    final boolean takesPagesUnderLock() {
        return true;
    }
}
