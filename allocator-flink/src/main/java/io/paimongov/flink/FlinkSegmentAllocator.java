package io.paimongov.flink;

import io.paimongov.allocator.support.EnginePagedAllocator;
import io.paimongov.allocator.support.LeakReport;
import io.paimongov.allocator.support.OffHeapSegments;
import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.runtime.memory.MemoryAllocationException;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.MemoryReservationException;
import org.apache.paimon.memory.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pages and byte reservations of one write, both taken from a Flink {@link MemoryManager} under an
 * owner object of this write alone, so Flink's own accounting ({@link
 * MemoryManager#availableMemory()}) shows the whole writer: live pages plus reservations, exactly.
 *
 * <p>How it works. A page is a Flink off-heap segment from {@link MemoryManager#allocatePages},
 * wrapped zero-copy as a Paimon segment over {@code getOffHeapBuffer()}; {@link PagedAllocator}
 * keeps each live Paimon segment with its Flink segment, so {@link #release(Collection)} gives back
 * the right one and ignores a foreign or already released segment. A reservation is {@link MemoryManager#reserveMemory} and is
 * given back with {@link MemoryManager#releaseMemory}, which takes any part. Flink refuses with
 * {@link MemoryAllocationException}, {@link MemoryReservationException} or, for more pages than the
 * manager has at all, {@link IllegalArgumentException}; Flink checks and takes the whole request in
 * one compare-and-set before it allocates, so a refusal changes nothing. Requests are also held to
 * {@link #capacityBytes()}, the write's share, which may be less than what the manager has free.
 *
 * <p>Flink frees a segment's native memory when it is released, and a Paimon segment over freed
 * memory reads garbage silently: the runtime returns pages in use only after Paimon's write is
 * closed (its page pool gives them back as the write closes), and {@link #close()} frees what is left with {@link
 * MemoryManager#releaseAll(Object)} and {@link MemoryManager#releaseAllMemory(Object)} for this
 * write's owner (Flink's {@code releaseAll} alone does not undo reservations).
 *
 * <p><b>Thread-safety:</b> thread-safe; one lock serialises every change of this write's
 * accounting; Flink checks and takes a page request in one step, so the write's capacity is the
 * only check before it ({@link EnginePagedAllocator}). No call here calls back into the runtime.
 * <b>May throw:</b> {@link #allocate} throws
 * {@link ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases never throw (a release the manager refuses
 * leaves the pages or bytes counted, {@link #releaseFailures()}); {@link #close()} throws {@link
 * IllegalStateException} on a leak, after releasing it, and {@link io.paimongov.spi.CleanupException}
 * when the manager refused a release, listing each step and what the manager still holds.
 */
final class FlinkSegmentAllocator extends EnginePagedAllocator<org.apache.flink.core.memory.MemorySegment> {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkSegmentAllocator.class);

    private final MemoryManager manager;
    private final WriteOwner owner;

    FlinkSegmentAllocator(MemoryManager manager, WriteOwner owner, long capacity) {
        super("flink", "flink managed memory pages", manager.getPageSize(), capacity, null, FlinkGovernanceProvider.LEAKS);
        this.manager = manager;
        this.owner = owner;
    }

    /** Flink's pages are the manager's ({@code taskmanager.memory.segment-size}); the option cannot change them. */
    @Override
    public boolean pageSizeFixedByEngine() {
        return true;
    }

    @Override
    protected void takePages(int count, List<org.apache.flink.core.memory.MemorySegment> into)
            throws MemoryAllocationException {
        manager.allocatePages(owner, into, count);
    }

    @Override
    protected MemorySegment segment(org.apache.flink.core.memory.MemorySegment page) {
        return OffHeapSegments.wrap(page.getOffHeapBuffer(), page.getAddress());
    }

    /** Flink's message says how much the manager had and how much was asked. */
    @Override
    protected boolean isRefusal(Throwable failure) {
        return failure instanceof MemoryAllocationException || failure instanceof IllegalArgumentException;
    }

    /**
     * Gives the pages back with {@link MemoryManager#release(Collection)}, skipping any the manager
     * freed already (a release that threw part way is given again at close). Throws what the manager
     * throws (a manager shut down refuses every release, and its own counter still shows the pages):
     * the base then keeps them counted until the manager confirms.
     */
    @Override
    protected void givePages(List<org.apache.flink.core.memory.MemorySegment> pages) {
        List<org.apache.flink.core.memory.MemorySegment> live = new ArrayList<>(pages.size());
        for (org.apache.flink.core.memory.MemorySegment page : pages) {
            if (!page.isFreed()) {
                live.add(page);
            }
        }
        if (!live.isEmpty()) {
            manager.release(live);
        }
    }

    @Override
    protected boolean reserveBytes(long bytes) {
        try {
            manager.reserveMemory(owner, bytes);
            return true;
        } catch (MemoryReservationException e) {
            return false;
        }
    }

    /**
     * Throws what the manager throws; the base then keeps the bytes counted. A manager shut down
     * freed every reservation itself: nothing to give back.
     */
    @Override
    protected void unreserveBytes(long bytes) {
        if (!manager.isShutdown()) {
            manager.releaseMemory(owner, bytes);
        }
    }

    /** Says whether the held bytes went back: only when the manager confirmed it (see {@link #close()}). */
    @Override
    protected IllegalStateException closeEngine(LeakReport leak) {
        if (!leak.found()) {
            return null;
        }
        long kept = notGivenBack();
        return new IllegalStateException("flink allocator of " + owner + " closed with " + leak.heldBytes()
                + " bytes still held (" + leak.pages() + " pages, " + leak.reservedBytes() + " reserved bytes); "
                + (kept == 0 ? "they were given back to Flink's memory manager"
                        : kept + " bytes of this write's could not be given back to Flink's memory manager"));
    }

    /**
     * Frees whatever the manager still holds for this write's owner, once {@link #close()} gave back
     * every page and reservation it knew of: {@code releaseAll(owner)} for pages and {@code
     * releaseAllMemory(owner)} for reservations (Flink's {@code releaseAll} alone does not undo
     * reservations), the second even when the first throws. The owner is this write's own object:
     * {@code releaseAll(Object)} takes any object, and the operator's or task's owner would free
     * memory other consumers of the slot hold.
     *
     * @return true when both calls returned, or the manager was shut down (which freed everything):
     *     the manager holds nothing of this owner
     * @throws RuntimeException what the first failing call threw, the other's failure suppressed
     */
    @Override
    protected boolean releaseEverything() {
        if (manager.isShutdown()) {
            // Shutting down freed every segment and reservation of the manager (its slot is gone).
            return true;
        }
        RuntimeException failure = null;
        try {
            manager.releaseAll(owner);
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            manager.releaseAllMemory(owner);
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            LOG.warn("Flink's memory manager refused to take back the memory of {}", owner, failure);
            throw failure;
        }
        return true;
    }

    /**
     * The owner under which one write's pages and reservations are registered in the manager; its
     * name shows in Flink's own leak messages.
     */
    static final class WriteOwner {
        private final String name;

        WriteOwner(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
