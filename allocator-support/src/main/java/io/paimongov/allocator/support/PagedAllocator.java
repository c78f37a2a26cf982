package io.paimongov.allocator.support;

import io.paimongov.spi.CleanupException;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * The bookkeeping every {@link SegmentAllocator} repeats: the capacity check, all-or-nothing page
 * allocation with rollback, the typed errors, the used and peak counters, the closed state and the
 * leak check at close. A vendor extends one of its two kinds, which differ in where pages come
 * from: {@link HeapPagedAllocator} when the engine only counts bytes and the pages are {@code
 * byte[]}, {@link EnginePagedAllocator} when the engine makes the pages and counts them itself.
 * Both bridge to the engine through the same two byte hooks, {@link #reserveBytes} and {@link
 * #unreserveBytes}; close has two optional hooks, {@link #releaseEverything()} and {@link
 * #closeEngine}; leaks go to the {@link LeakCounter} given to the constructor.
 *
 * <p>How it works. One monitor ({@link #lock}: this object, or the engine's own lock when the
 * engine calls back into the allocator under it, as Spark's task memory manager does) guards the
 * counters ({@link PageLedger}) and the live pages ({@link LivePages}). {@link #allocate} admits
 * and counts the request under it, then takes the pages outside the monitor (heap kind) or inside
 * it (engine kind). If taking fails part way, the pages taken go back and the counters return to
 * where they were before the error surfaces: an engine refusal as {@link
 * ResourceExhaustedException}, anything else as thrown. Every release calls the engine first and
 * moves the counters after, by what the engine took back, so {@link #usedBytes()} never shows
 * memory as returned that the engine still counts. {@link #close()} records a leak in {@link
 * #leakedBytes()} and the leak counter before it gives anything back ({@link AllocatorClose}).
 *
 * <p><b>Thread-safety:</b> thread-safe: every public method may be called from any thread; hooks
 * run under {@link #lock} unless their javadoc says otherwise. <b>May throw:</b> as {@link
 * SegmentAllocator} says: {@link #allocate} throws {@link ResourceExhaustedException}, {@link
 * #allocate} and {@link #tryReserve} throw {@link GovernanceClosedException} once closed, releases
 * never throw; {@link #close()} throws {@link IllegalStateException} on a leak, after releasing it.
 * <b>Re-entrancy:</b> hooks must not call back into this allocator, except that an engine holding
 * {@link #lock} may call {@link #release} (the monitor is re-entrant).
 *
 * @param <P> the engine's handle of one page (an Arrow buffer, a Flink segment; the Paimon segment
 *     itself when the engine only counts bytes)
 */
public abstract class PagedAllocator<P> implements SegmentAllocator, AutoCloseable {

    private final String name;
    private final String requester;
    private final int pageSize;
    private final long capacity;
    private final LeakCounter leaks;
    /** The monitor guarding the ledger and the live pages. */
    protected final Object lock;
    private final PageLedger ledger;
    private final LivePages<P> pages = new LivePages<>();

    PagedAllocator(String name, String requester, int pageSize, long capacity, Object lock, LeakCounter leaks) {
        this.name = name;
        this.requester = requester;
        this.pageSize = pageSize;
        this.capacity = capacity;
        this.leaks = leaks;
        this.lock = lock == null ? this : lock;
        this.ledger = new PageLedger(capacity);
    }

    // ---- hooks: the engine's byte account (every vendor), then close (optional) ----------------

    /** Reserves {@code bytes} (at least 1) from the engine, all or nothing. */
    protected abstract boolean reserveBytes(long bytes);

    /**
     * Gives back {@code bytes} that {@link #reserveBytes} reserved. Throws only when the engine did
     * not take them back: they then stay counted, {@link #releaseFailures()} counts it, and {@link
     * #close()} gives them back again.
     */
    protected abstract void unreserveBytes(long bytes);

    /**
     * {@link #reserveBytes(long)} of one kind (ALLOC.16), for an engine that tracks memory by
     * consumer; the default forgets the kind. A reservation without a kind is {@code OTHER}.
     */
    protected boolean reserveBytes(long bytes, ConsumerKind consumer) {
        return reserveBytes(bytes);
    }

    /**
     * {@link #unreserveBytes(long)} of bytes reserved for {@code consumer}; the default forgets the
     * kind. {@link #close()} gives back through {@link #unreserveBytes(long)}: an engine that tracks
     * kinds keeps its own count of each.
     */
    protected void unreserveBytes(long bytes, ConsumerKind consumer) {
        unreserveBytes(bytes);
    }

    /**
     * Called by {@link #close()} under {@link #lock} after it gave back what it knows of: gives back
     * whatever the engine still holds for this allocator, in one call (Flink's {@code
     * releaseAll(owner)}). True when the engine confirmed it holds nothing of it any more: the
     * counters then go to 0. May throw; the default does nothing and returns false.
     */
    protected boolean releaseEverything() throws Exception {
        return false;
    }

    /**
     * Called once by the first {@link #close()}, outside {@link #lock}, after everything held went
     * back ({@link #notGivenBack()} says what the engine would not take): closes what the engine gave
     * this allocator (a child allocator) and returns what {@link #close()} throws, or null. The
     * default: an {@link IllegalStateException} with {@link LeakReport#message()} when a leak was found.
     */
    protected IllegalStateException closeEngine(LeakReport leak) {
        return leak.found() ? new IllegalStateException(leak.message()) : null;
    }

    // ---- where pages come from: what each kind supplies ---------------------------------------

    /** Engine accounting for {@code bytes} of pages about to be taken, all or nothing. */
    abstract boolean admitPages(long bytes);

    /** Undoes {@link #admitPages}; may throw as {@link #unreserveBytes}. */
    abstract void unadmitPages(long bytes);

    /** Whether {@link #takePages} runs under {@link #lock}. */
    abstract boolean takesPagesUnderLock();

    /** Takes {@code count} pages, appending each handle to {@code into} as soon as it is taken. */
    abstract void takePages(int count, List<P> into) throws Exception;

    /** The Paimon segment over {@code page}'s memory; called once per page, right after it is taken. */
    abstract MemorySegment segment(P page);

    /** Gives {@code pages} back; throws only when the engine did not confirm (they stay counted). */
    abstract void givePages(List<P> pages);

    /** Whether {@code failure}, thrown by {@link #takePages}, is the engine refusing memory. */
    abstract boolean isRefusal(Throwable failure);

    // ---- SegmentAllocator --------------------------------------------------------------------

    @Override
    public final int pageSize() {
        return pageSize;
    }

    @Override
    public long capacityBytes() {
        return capacity;
    }

    /** Live pages plus reservations, as this allocator counts them. */
    @Override
    public long usedBytes() {
        return ledger.used();
    }

    /** The most bytes held at once since this allocator was made (exact). */
    public final long peakBytes() {
        synchronized (lock) {
            return ledger.peak();
        }
    }

    @Override
    public void allocate(List<MemorySegment> target, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("pages must be at least 1: " + count);
        }
        long bytes = (long) count * pageSize;
        List<P> taken = new ArrayList<>(count);
        MemorySegment[] made;
        if (takesPagesUnderLock()) {
            synchronized (lock) {
                admit(bytes);
                made = PageTake.take(this, ledger, pages, count, bytes, taken);
                pages.register(taken, made);
            }
        } else {
            synchronized (lock) {
                admit(bytes);
            }
            made = PageTake.take(this, ledger, pages, count, bytes, taken);
            synchronized (lock) {
                if (ledger.isClosed()) {
                    // Closed while the pages were taken: close() already settled these bytes.
                    GovernanceClosedException error = closedError();
                    try {
                        givePages(taken);
                    } catch (RuntimeException | Error e) {
                        error.addSuppressed(e);
                        ledger.releaseFailed(e);
                        pages.strand(taken);
                    }
                    throw error;
                }
                pages.register(taken, made);
            }
        }
        // One by one: addAll would copy the pages into a new array first.
        for (MemorySegment page : made) {
            target.add(page);
        }
    }

    private void admit(long bytes) {
        ensureOpen();
        if (!ledger.fits(bytes) || !admitPages(bytes)) {
            throw exhausted(bytes, null);
        }
        ledger.pagesTaken(bytes);
    }

    /** The error for a refused request of {@code bytes}, with the numbers now and the engine's refusal as cause. */
    ResourceExhaustedException exhausted(long bytes, Throwable cause) {
        ResourceExhaustedException e = ResourceExhaustedException.memory(requester, bytes, usedBytes(), capacity);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /**
     * Gives the live ones of {@code segments} back to the engine, in the order {@code segments}
     * lists them (a segment listed twice goes back once); the counters move only after the engine
     * took them. When the engine refuses (a hook throws), nothing moves: the pages stay live and
     * counted, {@link #releaseFailures()} counts it, and {@link #close()} gives them back.
     *
     * <p>The order is the caller's because an engine may free its pages faster in the order it made
     * them: Flink's memory manager took about half the CPU time to free a cancelled write's 1,050
     * pages of 32 KiB when they came back in the order they were taken rather than in identity-hash
     * order (a profile of {@code bench cancel}, docs/performance.md).
     */
    @Override
    public void release(Collection<MemorySegment> segments) {
        synchronized (lock) {
            LivePages.Removed<P> gone = pages.remove(segments);
            if (gone.isEmpty()) {
                return;
            }
            try {
                givePages(gone.pages());
            } catch (RuntimeException | Error e) {
                pages.putBack(gone);
                ledger.releaseFailed(e);
                return;
            }
            long bytes = (long) gone.pages().size() * pageSize;
            try {
                unadmitPages(bytes);
            } catch (RuntimeException | Error e) {
                // The pages are gone; their bytes stay counted until close gives them back.
                ledger.releaseFailed(e);
                return;
            }
            ledger.pagesGiven(bytes);
        }
    }

    @Override
    public boolean tryReserve(long bytes) {
        return tryReserve(bytes, ConsumerKind.OTHER);
    }

    /** As {@link #tryReserve(long)}, through {@link #reserveBytes(long, ConsumerKind)}. */
    @Override
    public boolean tryReserve(long bytes, ConsumerKind consumer) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        synchronized (lock) {
            ensureOpen();
            if (bytes > 0 && (!ledger.fits(bytes) || !reserveBytes(bytes, consumer))) {
                return false;
            }
            ledger.reserved(bytes);
            return true;
        }
    }

    /** Returns up to {@code bytes} of reservations; more than is reserved returns all of it. */
    @Override
    public void release(long bytes) {
        release(bytes, ConsumerKind.OTHER);
    }

    /** As {@link #release(long)}, through {@link #unreserveBytes(long, ConsumerKind)}. */
    @Override
    public void release(long bytes, ConsumerKind consumer) {
        synchronized (lock) {
            long given = Math.min(Math.max(bytes, 0), ledger.reservedBytes());
            if (given == 0) {
                return;
            }
            try {
                unreserveBytes(given, consumer);
            } catch (RuntimeException | Error e) {
                ledger.releaseFailed(e);
                return;
            }
            ledger.unreserved(given);
        }
    }

    /** Releases the engine did not confirm while open (a hook threw; the memory stayed counted). Exact. */
    public final long releaseFailures() {
        synchronized (lock) {
            return ledger.releaseFailures();
        }
    }

    /** Whether {@link #close()} ran. */
    public final boolean isClosed() {
        synchronized (lock) {
            return ledger.isClosed();
        }
    }

    private void ensureOpen() {
        if (ledger.isClosed()) {
            throw closedError();
        }
    }

    private GovernanceClosedException closedError() {
        return new GovernanceClosedException(name + " allocator is closed");
    }

    /**
     * Bytes still held when {@link #close()} ran (a leak), exact; 0 while open and after a close
     * that found nothing. Set before the counters are touched and never reset, so the leak stays
     * visible after {@link #usedBytes()} followed the engine back to 0.
     */
    public final long leakedBytes() {
        synchronized (lock) {
            return ledger.leaked();
        }
    }

    /**
     * Bytes the engine did not take back at {@link #close()}, still counted in {@link #usedBytes()};
     * 0 while open and after a close that gave everything back. Exact.
     */
    public final long notGivenBack() {
        synchronized (lock) {
            return ledger.isClosed() ? ledger.used() : 0;
        }
    }

    /**
     * Gives every page and reservation still held back to the engine, each step even when another
     * failed, then runs {@link #closeEngine}. The counters go down only after the engine hooks
     * returned, by what they gave back; what was held is kept in {@link #leakedBytes()}, what the
     * engine would not take in {@link #notGivenBack()}. Idempotent: later calls do nothing.
     *
     * @throws IllegalStateException what {@link #closeEngine} returns: by default when pages or
     *     reservations were still held (a leak), after giving them back
     * @throws CleanupException when a release failed, now or while the allocator was open: the
     *     steps name what failed and what the engine still holds; the leak, if any, is its first step
     */
    @Override
    public void close() {
        LeakReport leak;
        CleanupException.Steps steps = new CleanupException.Steps(name + " allocator");
        synchronized (lock) {
            if (ledger.isClosed()) {
                return;
            }
            leak = new LeakReport(name, ledger.used(), ledger.pageBytes() / pageSize, ledger.reservedBytes());
            ledger.close();
            if (leak.found() && leaks != null) {
                leaks.record(leak.heldBytes());
            }
            AllocatorClose.giveBack(this, ledger, pages, steps);
        }
        AllocatorClose.finish(name, steps, closeEngine(leak));
    }
}
