package io.paimongov.spi;

/**
 * A {@link PagedAllocator} over an engine whose page call does its own accounting (an Arrow
 * allocator, Flink's memory manager): the engine counts a page when it makes it and uncounts it
 * when it takes it back, so admitting pages asks the engine nothing ({@link #admitPages} only
 * checks what the subclass says, by default nothing) and pages are taken under the allocator's
 * lock, which then serialises every change of the write's accounting in the engine.
 *
 * <p>Thread-safe, as {@link PagedAllocator} is; a subclass implements the page and byte hooks.
 *
 * @param <P> the engine's handle of one page
 */
public abstract class EnginePagedAllocator<P> extends PagedAllocator<P> {

    /** As {@link PagedAllocator#PagedAllocator}. */
    protected EnginePagedAllocator(String name, String requester, int pageSize, long capacity, Object lock) {
        super(name, requester, pageSize, capacity, lock);
    }

    /** Nothing to ask the engine before its page call; a subclass may check the engine's headroom. */
    @Override
    protected boolean admitPages(long bytes) {
        return true;
    }

    /** The engine uncounted the pages when it took them back in {@link #givePages}. */
    @Override
    protected final void unadmitPages(long bytes) {}

    @Override
    protected final boolean takesPagesUnderLock() {
        return true;
    }
}
