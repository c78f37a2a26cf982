package io.paimongov.runtime.internal.memory;

import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator.AllocatorContractException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;

/**
 * Paimon's write-buffer pool over a {@link MemoryBudget}: every page is accounted in one page
 * reservation before it is taken from the engine allocator, and {@link #nextSegment()} returns
 * {@code null} when the budget is spent, which makes Paimon spill or flush.
 *
 * <p>Pages Paimon returns are cached and handed out again within the write; {@link
 * #releaseCached()} gives cached pages back to the engine when another consumer needs the budget.
 *
 * <p>First-pages floor. A Paimon writer fails hard when it cannot get its first pages (when it is
 * created, and again when it resets its buffer after a flush). {@link #holdFirstPages(int)} takes
 * that many pages from the engine into the cache before a writer is created, and from then on
 * {@link #releaseCached()} leaves that many cached: the floor is always in hand, whatever another
 * consumer of the engine takes in between. The floor pages are ordinary pages to Paimon (any writer
 * may use them) and go back to the engine at {@link #close()}.
 * Pages go back to the engine only through {@link #releaseCached()} and {@link #close()}: {@link
 * #close()} must run only after the Paimon write is closed, since Paimon keeps using pages it has
 * not returned.
 *
 * <p>Boundary checks. Every page taken from the engine is checked before Paimon sees it: exactly
 * the one page asked for, of {@link SegmentAllocator#pageSize()} bytes, not live in this pool
 * already, and not over the memory of another live page (heap pages by their array, off-heap
 * pages by their native address range, {@link NativeAddress}); and {@code usedBytes()} not below
 * zero. A page that fails is not handed out: the call throws {@link AllocatorContractException},
 * which fails the write (a page of the wrong size would otherwise have Paimon write past its rows
 * or lose them, and commit the result). Cost: an identity-set insert, and a sorted-set look-up and
 * insert for an off-heap page, per page taken from the engine (cached pages are not checked
 * again), measured by {@code PoolPageBenchmark.poolPage} in the runtime's test tree (docs/jmh.md).
 *
 * <p><b>Thread-safety:</b> thread-safe. The pool's lock guards only its own lists; the engine's
 * allocator is never called under it, so an engine that calls back into the runtime to spill while
 * holding its own lock cannot deadlock with a writer. <b>Who calls:</b> Paimon's writers on the
 * writing thread; {@link #releaseCached()} also on compaction threads waiting for memory and on an
 * engine's thread asking for memory back; {@link #close()} on the thread that closes the write.
 */
public final class GovernedSegmentPool implements MemorySegmentPool, AutoCloseable {

    private final MemoryBudget budget;
    private final SegmentAllocator allocator;
    private final MemoryReservation pages;
    private final Runnable beforeAllocate;
    private final int pageSize;
    private final ArrayDeque<MemorySegment> cached = new ArrayDeque<>();
    /**
     * Taken from the engine and not given back, in the order taken: {@link #close()} gives them back
     * in that order ({@link SegmentAllocator#release}). Paimon's {@code MemorySegment} keeps
     * {@code Object}'s identity {@code equals} and {@code hashCode}, so this set is by identity.
     */
    private final Set<MemorySegment> owned = new LinkedHashSet<>();
    /** The arrays of the live heap pages in {@link #owned}: two live pages over one array alias. */
    private final Set<byte[]> heapMemory = Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * The native addresses of the live off-heap pages in {@link #owned}, sorted: every live page is
     * {@link #pageSize} bytes, so a new page overlaps a live one exactly when the nearest address
     * below or above it is closer than a page.
     */
    private final TreeSet<Long> offHeapAddresses = new TreeSet<>();
    private final LongAdder denied = new LongAdder();
    private int floor;
    private boolean closed;

    /**
     * @param beforeAllocate runs before a page is taken from the engine (the cancellation check);
     *     what it throws propagates to Paimon
     */
    public GovernedSegmentPool(MemoryBudget budget, Runnable beforeAllocate) {
        this.budget = budget;
        this.allocator = budget.allocator();
        this.pageSize = allocator.pageSize();
        this.pages = budget.newPageReservation("write-buffer pages");
        this.beforeAllocate = beforeAllocate;
    }

    @Override
    public int pageSize() {
        return pageSize;
    }

    @Override
    public MemorySegment nextSegment() {
        beforeAllocate.run();
        synchronized (this) {
            if (closed) {
                return null;
            }
            MemorySegment page = cached.pollFirst();
            if (page != null) {
                return page;
            }
        }
        MemorySegment page = takeFromEngine();
        if (page == null) {
            denied.increment();
        }
        return page;
    }

    /**
     * A page for a consumer that must leave the first-pages floor to writers (the write's shared
     * sort): a cached page only while more than the floor are cached, else a new one from the
     * engine; null when neither is possible.
     */
    public MemorySegment nextSegmentAboveFloor() {
        beforeAllocate.run();
        synchronized (this) {
            if (closed) {
                return null;
            }
            if (cached.size() > floor) {
                return cached.pollFirst();
            }
        }
        MemorySegment page = takeFromEngine();
        if (page == null) {
            denied.increment();
        }
        return page;
    }

    /** One new page from the engine, accounted and owned; null when the budget or engine is short or the pool closed. */
    private MemorySegment takeFromEngine() {
        if (!pages.tryGrow(pageSize)) {
            return null;
        }
        List<MemorySegment> got = new ArrayList<>(1);
        try {
            allocator.allocate(got, 1);
        } catch (ResourceExhaustedException e) {
            pages.shrink(pageSize);
            return null;
        }
        if (got.size() != 1 || got.get(0) == null || got.get(0).size() != pageSize) {
            String what = got.size() != 1
                    ? "allocate(target, 1) added " + got.size() + " pages"
                    : got.get(0) == null ? "allocate(target, 1) added null" : "a page of " + got.get(0).size() + " bytes; pageSize() is " + pageSize;
            String clause = got.size() != 1 ? "ALLOC.3" : "ALLOC.4";
            got.removeIf(java.util.Objects::isNull);
            allocator.release(got);
            pages.shrink(pageSize);
            throw new AllocatorContractException(allocator, clause, what);
        }
        MemorySegment page = got.get(0);
        // Read outside the pool's lock, as every call into the allocator.
        long used = allocator.usedBytes();
        if (used < 0) {
            pages.shrink(pageSize);
            throw new AllocatorContractException(allocator, "ALLOC.2", "usedBytes() is " + used);
        }
        synchronized (this) {
            if (!closed) {
                admit(page);
                return page;
            }
        }
        allocator.release(got);
        pages.shrink(pageSize);
        return null;
    }

    /** Records a page taken from the engine as owned, after the checks that need the live pages. */
    private void admit(MemorySegment page) {
        String twice = owned.contains(page)
                ? "a page still live in this write was handed out again"
                : page.isOffHeap() ? overlap(page)
                : heapMemory.contains(page.getHeapMemory())
                        ? "a new page is over the memory of a page still live in this write"
                        : null;
        if (twice != null) {
            // Not given back: its memory belongs to the live page too.
            pages.shrink(pageSize);
            throw new AllocatorContractException(allocator, "ALLOC.4", twice);
        }
        owned.add(page);
        if (!page.isOffHeap()) {
            heapMemory.add(page.getHeapMemory());
        } else if (NativeAddress.available()) {
            offHeapAddresses.add(NativeAddress.of(page));
        }
    }

    /** What shows that off-heap {@code page} overlaps the native memory of a live page, or null. */
    private String overlap(MemorySegment page) {
        if (!NativeAddress.available()) {
            return null;
        }
        long address = NativeAddress.of(page);
        Long below = offHeapAddresses.floor(address);
        Long above = offHeapAddresses.higher(address);
        Long live = below != null && address - below < pageSize ? below
                : above != null && above - address < pageSize ? above : null;
        return live == null ? null
                : "a new off-heap page at native address 0x" + Long.toHexString(address) + " overlaps the live page at 0x"
                        + Long.toHexString(live) + " (pages of " + pageSize + " bytes)";
    }

    /** Forgets {@code page}, given back to the engine. Under the pool's lock. */
    private void forget(MemorySegment page) {
        owned.remove(page);
        if (!page.isOffHeap()) {
            heapMemory.remove(page.getHeapMemory());
        } else if (NativeAddress.available()) {
            offHeapAddresses.remove(NativeAddress.of(page));
        }
    }

    /**
     * Raises the first-pages floor to {@code count} and makes sure that many pages are cached,
     * taking the missing ones from the engine. Runs the cancellation check first. Nothing is
     * flushed here: when this returns false, the caller makes room and asks again.
     *
     * @return whether {@code count} pages are cached now; false when the budget or the engine is
     *     short (the pages taken so far stay cached) or the pool is closed
     */
    public boolean holdFirstPages(int count) {
        beforeAllocate.run();
        while (true) {
            synchronized (this) {
                if (closed) {
                    return false;
                }
                floor = Math.max(floor, count);
                if (cached.size() >= count) {
                    return true;
                }
            }
            MemorySegment page = takeFromEngine();
            if (page == null) {
                return false;
            }
            synchronized (this) {
                cached.addLast(page);
            }
        }
    }

    /**
     * Takes pages Paimon no longer uses into the cache. When the budget owes memory to a shared
     * memory ({@link MemoryBudget#owedBytes()}: another write took its share back), the cache goes
     * back to the engine at once, so that a borrower busy in a long call (a checkpoint's flush) gives
     * back each buffer as it empties rather than at its next call.
     */
    @Override
    public void returnAll(List<MemorySegment> memory) {
        synchronized (this) {
            for (MemorySegment page : memory) {
                if (owned.contains(page)) {
                    cached.addFirst(page);
                }
            }
        }
        if (budget.owedBytes() > 0) {
            releaseCached();
        }
    }

    /** Cached pages plus what the budget could still give, in pages. */
    @Override
    public synchronized int freePages() {
        long free = cached.size() + budget.availableBytes() / pageSize;
        return (int) Math.min(Integer.MAX_VALUE, free);
    }

    /**
     * Gives cached (unused) pages back to the engine, all but the first-pages floor; returns the
     * bytes freed.
     */
    public long releaseCached() {
        List<MemorySegment> free = new ArrayList<>();
        synchronized (this) {
            while (cached.size() > floor) {
                free.add(cached.pollLast());
            }
            if (free.isEmpty()) {
                return 0;
            }
            free.forEach(this::forget);
        }
        allocator.release(free);
        long bytes = (long) free.size() * pageSize;
        pages.shrink(bytes);
        return bytes;
    }

    /** Pages taken from the engine and not yet given back (in use or cached). */
    public synchronized int ownedPages() {
        return owned.size();
    }

    /** Times {@link #nextSegment()} had no page to give (exact). */
    public long deniedCount() {
        return denied.sum();
    }

    /**
     * Gives every page back to the engine, including pages Paimon never returned. Call only after
     * the Paimon write is closed. Idempotent. The pages leave the budget only once the allocator
     * took them: when {@code release} throws (a provider breaking ALLOC.7), they stay owned and
     * accounted ({@link #ownedPages()}, the budget's reserved bytes), the pool's reservation is kept
     * out of {@link MemoryBudget#closeAll}, and the error is thrown.
     */
    @Override
    public void close() {
        Set<MemorySegment> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            cached.clear();
            // Not copied: once closed, nothing adds to or removes from owned until the clear below
            // (no new page is admitted, no cached page is left to give back early).
            all = owned;
        }
        if (!all.isEmpty()) {
            try {
                allocator.release(all);
            } catch (RuntimeException | Error e) {
                pages.keepAtClose();
                throw e;
            }
        }
        synchronized (this) {
            owned.clear();
            heapMemory.clear();
            offHeapAddresses.clear();
        }
        pages.close();
    }
}
