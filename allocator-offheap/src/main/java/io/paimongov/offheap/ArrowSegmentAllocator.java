package io.paimongov.offheap;

import io.paimongov.allocator.support.EnginePagedAllocator;
import io.paimongov.allocator.support.LeakReport;
import io.paimongov.allocator.support.OffHeapSegments;
import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.paimon.memory.MemorySegment;

/**
 * Pages and byte reservations of one write, both taken from one Arrow child allocator whose limit
 * is the write's budget, so Arrow's own counters ({@link BufferAllocator#getAllocatedMemory()} of
 * the child and of every ancestor) show the whole writer: live pages plus reservations, exactly.
 *
 * <p>How it works. A page is an {@link ArrowBuf} of exactly {@link #pageSize()} bytes, wrapped
 * zero-copy as a Paimon segment over a {@code DirectByteBuffer} that {@link NioAccess} builds
 * through a method handle (Arrow's own {@code nioBuffer} goes through reflection on every call);
 * {@link PagedAllocator} keeps each live segment with its buffer, so {@link #release(Collection)}
 * closes the right buffer and ignores a foreign or already released segment.
 * A reservation allocates no memory: it is Arrow accounting only, taken with {@link
 * AllocationReservation#reserve(long)} (the accountant's all-or-nothing step, which does not round)
 * and returned with {@link BufferAllocator#releaseBytes(long)}, which can return any part, so
 * {@link #release(long)} is exact whatever chunk sizes the runtime returns. ({@link
 * AllocationReservation#add(long)} would round every request up to a power of two, and real
 * buffers per reservation would hold direct memory that nobody uses.) The reservation handle is
 * closed at once: its own size stays 0, so closing it gives nothing back.
 *
 * <p>Every request first checks the child's headroom (its limit and every ancestor's) and only then
 * asks Arrow. Arrow counts a request up the whole chain before it can refuse and unwinds it
 * afterwards, so a refused request would briefly show in the engine's counters; the check keeps
 * that from happening among the writes of one Arrow root, whose allocators share one monitor per
 * root ({@link #rootLock}), so the check and the request are one step for all of them. Requests
 * still race with other users of the root (the engine's own): Arrow's {@link OutOfMemoryException}
 * then becomes {@link ResourceExhaustedException}, and buffers already taken for the call are
 * closed first.
 *
 * <p><b>Thread-safety:</b> thread-safe; the root's monitor serialises every change of the Arrow
 * accounting of the writes under that root (no allocator call here calls back into the runtime).
 * {@link #usedBytes()} reads Arrow's counter without it. <b>May throw:</b> {@link #allocate} throws {@link
 * ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases never throw; {@link #close()} throws {@link
 * IllegalStateException} on a leak, after releasing it.
 */
final class ArrowSegmentAllocator extends EnginePagedAllocator<ArrowBuf> {

    private final BufferAllocator arrow;
    private volatile String writeName;

    /** Takes ownership of {@code arrow}, the write's child allocator, and closes it in {@link #close()}. */
    ArrowSegmentAllocator(BufferAllocator arrow, int pageSize, long capacity) {
        super("offheap", "offheap pages", pageSize, capacity, rootLock(arrow), OffheapGovernanceProvider.LEAKS);
        this.arrow = arrow;
    }

    /** One monitor per Arrow root, shared by every write's allocator under it; weakly held. */
    private static final Map<BufferAllocator, Object> ROOT_LOCKS = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * The monitor of {@code arrow}'s root: writes under one root check the headroom and take pages
     * under it, so one write's request never meets another's in Arrow's counters (Arrow counts a
     * request before it refuses it, so two writes racing for the last bytes showed a refused request
     * in the root's counter, above its limit, for a moment).
     */
    private static Object rootLock(BufferAllocator arrow) {
        return ROOT_LOCKS.computeIfAbsent(arrow.getRoot(), root -> new Object());
    }

    /** Arrow's own counter of the write's child allocator: live pages plus reservations. */
    @Override
    public long usedBytes() {
        return arrow.getAllocatedMemory();
    }

    /** Arrow counts pages as it makes them; this only keeps a refused request out of its counters. */
    @Override
    protected boolean admitPages(long bytes) {
        return arrow.getHeadroom() >= bytes;
    }

    @Override
    protected void takePages(int count, List<ArrowBuf> into) {
        for (int i = 0; i < count; i++) {
            into.add(arrow.buffer(pageSize()));
        }
    }

    @Override
    protected MemorySegment segment(ArrowBuf page) {
        long address = page.memoryAddress();
        return OffHeapSegments.wrap(NioAccess.directBuffer(address, pageSize()), address);
    }

    /**
     * Closes every buffer, each even when closing another threw, skipping one Arrow already took back
     * (a release that threw part way is given again at close); throws the first failure with the
     * others suppressed, so the base keeps the pages counted.
     */
    @Override
    protected void givePages(List<ArrowBuf> pages) {
        RuntimeException failure = null;
        for (ArrowBuf page : pages) {
            if (page.refCnt() == 0) {
                continue;
            }
            try {
                page.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Arrow's message says which allocator of the chain refused and what each one held. */
    @Override
    protected boolean isRefusal(Throwable failure) {
        return failure instanceof OutOfMemoryException;
    }

    @Override
    protected boolean reserveBytes(long bytes) {
        if (arrow.getHeadroom() < bytes) {
            return false;
        }
        try (AllocationReservation handle = arrow.newReservation()) {
            return handle.reserve(bytes);
        }
    }

    @Override
    protected void unreserveBytes(long bytes) {
        arrow.releaseBytes(bytes);
    }

    /** The runtime names the write only when it opens; a leak message uses the name. */
    void nameWrite(String name) {
        this.writeName = name;
    }

    /**
     * Closes the Arrow child allocator, after {@link #close()} released every page and reservation
     * still held.
     *
     * @return the leak, when pages or reservations were still held (they were released first, so the
     *     engine's allocator got them back) or when Arrow's own check at close still finds memory;
     *     counted in {@link OffheapGovernanceProvider#leaksDetected()}
     */
    @Override
    protected IllegalStateException closeEngine(LeakReport leak) {
        long held = leak.heldBytes();
        IllegalStateException arrowLeak = null;
        try {
            arrow.close();
        } catch (IllegalStateException e) {
            arrowLeak = e;
        }
        if (held == 0 && arrowLeak == null) {
            return null;
        }
        if (held == 0) {
            OffheapGovernanceProvider.LEAKS.record(0);
        }
        return new IllegalStateException(leakMessage(held, leak.pages(), leak.reservedBytes(), arrowLeak), arrowLeak);
    }

    private String leakMessage(long held, long leftPages, long leftReserved, IllegalStateException arrowLeak) {
        String name = writeName;
        String write = name == null ? "a write that never opened a resource context" : "write '" + name + "'";
        String message =
                "offheap allocator of " + write + " (Arrow allocator '" + arrow.getName() + "') closed with " + held
                        + " bytes still held (" + leftPages + " pages, " + leftReserved + " reserved bytes)";
        long kept = notGivenBack();
        if (kept != 0) {
            message += "; " + kept + " bytes of them could not be given back to Arrow";
        } else if (arrowLeak == null) {
            return message + "; they were released before the Arrow allocator closed";
        }
        if (arrowLeak == null) {
            return message;
        }
        String arrowSays = arrowLeak.getMessage() == null ? "" : arrowLeak.getMessage().lines().findFirst().orElse("");
        return message + "; Arrow still reports memory it could not get back: " + arrowSays;
    }
}
