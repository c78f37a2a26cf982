package io.paimongov.flink;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.OffHeapSegments;
import io.paimongov.spi.EnginePagedAllocator;
import io.paimongov.spi.PagedAllocator;
import io.paimongov.spi.ResourceExhaustedException;
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
 * closed (see {@code GovernedSegmentPool}), and {@link #close()} frees what is left with {@link
 * MemoryManager#releaseAll(Object)} and {@link MemoryManager#releaseAllMemory(Object)} for this
 * write's owner (Flink's {@code releaseAll} alone does not undo reservations).
 *
 * <p><b>Thread-safety:</b> thread-safe; one lock serialises every change of this write's
 * accounting; Flink checks and takes a page request in one step, so the write's capacity is the
 * only check before it ({@link EnginePagedAllocator}). No call here calls back into the runtime.
 * <b>May throw:</b> {@link #allocate} throws
 * {@link ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases never throw; {@link #close()} throws {@link
 * IllegalStateException} on a leak, after releasing it.
 */
final class FlinkSegmentAllocator extends EnginePagedAllocator<org.apache.flink.core.memory.MemorySegment> {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkSegmentAllocator.class);

    private final MemoryManager manager;
    private final WriteOwner owner;

    FlinkSegmentAllocator(MemoryManager manager, WriteOwner owner, long capacity) {
        super("flink", "flink managed memory pages", manager.getPageSize(), capacity, null);
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

    /** Infallible: a manager already shut down (its slot is gone) has freed the memory itself. */
    @Override
    protected void givePages(List<org.apache.flink.core.memory.MemorySegment> pages) {
        if (pages.isEmpty()) {
            return;
        }
        try {
            manager.release(pages);
        } catch (RuntimeException e) {
            LOG.warn("Flink's memory manager refused to take back {} pages of {}", pages.size(), owner, e);
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

    @Override
    protected void unreserveBytes(long bytes) {
        try {
            manager.releaseMemory(owner, bytes);
        } catch (RuntimeException e) {
            LOG.warn("Flink's memory manager refused to take back {} reserved bytes of {}", bytes, owner, e);
        }
    }

    @Override
    protected void leakFound(long heldBytes) {
        FlinkGovernanceProvider.LEAKS.record(heldBytes);
    }

    @Override
    protected String leakMessage(long held, long leftPages, long leftReserved) {
        return "flink allocator of " + owner + " closed with " + held + " bytes still held (" + leftPages + " pages, "
                + leftReserved + " reserved bytes); they were given back to Flink's memory manager";
    }

    /**
     * Frees whatever the manager still holds for this write's owner, once {@link #close()} gave back
     * every page and reservation it knew of. The owner is this write's own object: {@code
     * releaseAll(Object)} takes any object, and the operator's or task's owner would free memory
     * other consumers of the slot hold. (Flink's {@code releaseAll} alone does not undo
     * reservations.)
     */
    @Override
    protected IllegalStateException closeEngine(long held, long leftPages, long leftReserved) {
        try {
            manager.releaseAll(owner);
            manager.releaseAllMemory(owner);
        } catch (RuntimeException e) {
            LOG.warn("Flink's memory manager refused to take back the memory of {}", owner, e);
        }
        return super.closeEngine(held, leftPages, leftReserved);
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
