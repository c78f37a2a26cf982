package io.paimongov.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.memory.MemorySegment;

/**
 * The bookkeeping every {@link SegmentAllocator} repeats, for a vendor to extend: the capacity
 * check, all-or-nothing page allocation with rollback, the typed errors, the used and peak
 * counters, the closed state and the leak check at close. A subclass supplies only the engine's
 * calls, as hooks: take pages from the engine and give them back, reserve and unreserve bytes.
 * Two bases fill in the page hooks for the usual engines: {@link HeapPagedAllocator} when the
 * engine only counts bytes and the pages are {@code byte[]}, {@link EnginePagedAllocator} when the
 * engine makes the pages itself.
 *
 * <p>How it works. One monitor ({@link #lock}: this object, or the engine's own lock when the
 * engine calls back into the allocator under it, as Spark's task memory manager does) guards the
 * counters and the live pages. {@link #allocate} admits the request under it (open, within {@link
 * #capacityBytes()}, {@link #admitPages}), counts it as used at once, then takes the pages ({@link
 * #takePages}) outside the monitor, or inside it when {@link #takesPagesUnderLock()}, and
 * registers them. If taking fails part way, the pages already taken go back ({@link #givePages}),
 * the admission is undone and the counters return to where they were before the error surfaces:
 * an engine refusal ({@link #isRefusal}) as {@link ResourceExhaustedException}, anything else
 * as thrown. Every live page is kept with its engine handle, by identity, so {@link
 * #release(Collection)} returns exactly the pages this allocator handed out and ignores a
 * foreign or already released one. Every release calls the engine first and moves the counters
 * after, by what the engine took back, so {@link #usedBytes()} never shows memory as returned
 * that the engine still counts. {@link #close()} gives back everything still held and, when
 * something was (a leak), keeps it in {@link #leakedBytes()} and reports it through {@link
 * #leakFound} before it gives anything back, so a reader of either sees the leak no later than
 * {@link #usedBytes()} shows 0, and after it.
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
    /** The monitor guarding every field below. */
    protected final Object lock;
    private final Map<MemorySegment, P> live = new IdentityHashMap<>();
    private long pageBytes;
    private long reserved;
    private long peak;
    private long leaked;
    private volatile long used;
    private boolean closed;
    /** Pages the engine would not take back when an allocation was undone; given back at close. */
    private final List<P> stranded = new ArrayList<>();
    private long releaseFailures;
    private Throwable firstReleaseFailure;

    /**
     * @param name what the allocator is called in its errors ({@code "heap"} gives {@code "heap
     *     allocator is closed"})
     * @param requester who asks in a {@link ResourceExhaustedException} ({@code "heap pages"})
     * @param pageSize the page size, a power of two
     * @param capacity the most bytes of pages and reservations together
     * @param lock the monitor to guard the counters with; null for this object
     */
    protected PagedAllocator(String name, String requester, int pageSize, long capacity, Object lock) {
        this.name = name;
        this.requester = requester;
        this.pageSize = pageSize;
        this.capacity = capacity;
        this.lock = lock == null ? this : lock;
    }

    // ---- hooks -------------------------------------------------------------------------------

    /**
     * Engine accounting for {@code bytes} of pages about to be taken, all or nothing. The default
     * reserves them like byte reservations ({@link #reserveBytes}), for engines that count bytes
     * and leave the pages to the allocator; engines whose page call does its own accounting return
     * true, or check the engine's headroom.
     */
    protected boolean admitPages(long bytes) {
        return reserveBytes(bytes);
    }

    /**
     * Undoes {@link #admitPages} for {@code bytes} of pages given back. May throw when the engine
     * refuses: the bytes then stay counted (see {@link #givePages}).
     */
    protected void unadmitPages(long bytes) {
        unreserveBytes(bytes);
    }

    /**
     * Takes {@code count} pages from the engine, appending each handle to {@code into} as soon as
     * it is taken. May throw: the pages already in {@code into} are then given back by the caller.
     * Runs outside {@link #lock} unless {@link #takesPagesUnderLock()}.
     */
    protected abstract void takePages(int count, List<P> into) throws Exception;

    /** The Paimon segment over {@code page}'s memory; called once per page, right after it is taken. */
    protected abstract MemorySegment segment(P page);

    /**
     * A Paimon segment over native memory, as {@link OffHeapSegments#wrap} makes it.
     *
     * @deprecated since 0.1.0, removed in the version after it: call {@link OffHeapSegments#wrap}
     *     (docs/tck.md, "Changelog").
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    protected static MemorySegment wrapOffHeap(java.nio.ByteBuffer buffer, long address) {
        return OffHeapSegments.wrap(buffer, address);
    }

    /**
     * Gives {@code pages} back to the engine. Throws only when the engine did not confirm the
     * release: the pages then stay live and counted, the failure is counted in {@link
     * #releaseFailures()}, and {@link #close()} gives them back again; so a page the engine did take
     * back before the throw must be skipped, without error, when it is given again.
     */
    protected abstract void givePages(List<P> pages);

    /** Reserves {@code bytes} (at least 1) of non-page memory from the engine, all or nothing. */
    protected abstract boolean reserveBytes(long bytes);

    /**
     * Gives back {@code bytes} that {@link #reserveBytes} reserved. Throws only when the engine did
     * not take them back: they then stay counted, as for {@link #givePages}.
     */
    protected abstract void unreserveBytes(long bytes);

    /** Whether {@code failure}, thrown by {@link #takePages}, is the engine refusing memory. */
    protected boolean isRefusal(Throwable failure) {
        return false;
    }

    /** Whether {@link #takePages} must run under {@link #lock}; false allocates outside it. */
    protected boolean takesPagesUnderLock() {
        return false;
    }

    /**
     * Called once, under {@link #lock}, by the first {@link #close()} that finds bytes still held,
     * before they go back to the engine and before the counters move: the place to count
     * the leak (e.g. in a {@link io.paimongov.spi.metrics.LeakCounter}). The default does nothing.
     */
    protected void leakFound(long heldBytes) {}

    /**
     * Called by {@link #close()} under {@link #lock} after it gave back every page and reservation it
     * knows of (successfully or not): gives back whatever the engine still holds for this allocator,
     * known or not, for an engine that can do that in one call (Flink's {@code releaseAll(owner)}).
     * Returns true when the engine confirmed it now holds nothing of this allocator: the counters then
     * go to 0. May throw; the default does nothing and returns false.
     */
    protected boolean releaseEverything() throws Exception {
        return false;
    }

    /** The message of a leak at close; the default says how many bytes and pages were held. */
    protected String leakMessage(long heldBytes, long pages, long reservedBytes) {
        return name + " allocator closed with " + heldBytes + " bytes still held (" + pages + " pages)";
    }

    /**
     * Called once by the first {@link #close()}, outside {@link #lock}, after everything held went
     * back to the engine: closes what the engine gave this allocator (a child allocator) and says
     * what {@link #close()} throws.
     *
     * @return the error {@link #close()} throws, or null; the default is an {@link
     *     IllegalStateException} with {@link #leakMessage} when bytes were held, else null
     */
    protected IllegalStateException closeEngine(long heldBytes, long pages, long reservedBytes) {
        return heldBytes == 0 ? null : new IllegalStateException(leakMessage(heldBytes, pages, reservedBytes));
    }

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
        return used;
    }

    /** The most bytes held at once since this allocator was made (exact). */
    public final long peakBytes() {
        synchronized (lock) {
            return peak;
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
                made = take(count, bytes, taken);
                register(taken, made);
            }
        } else {
            synchronized (lock) {
                admit(bytes);
            }
            made = take(count, bytes, taken);
            synchronized (lock) {
                if (closed) {
                    // Closed while the pages were taken: close() already settled these bytes.
                    GovernanceClosedException error = closedError();
                    try {
                        givePages(taken);
                    } catch (RuntimeException | Error e) {
                        error.addSuppressed(e);
                        releaseFailed(e);
                        stranded.addAll(taken);
                    }
                    throw error;
                }
                register(taken, made);
            }
        }
        // One by one: addAll would copy the pages into a new array first.
        for (MemorySegment page : made) {
            target.add(page);
        }
    }

    private void admit(long bytes) {
        ensureOpen();
        if (!fits(bytes) || !admitPages(bytes)) {
            throw exhausted(bytes, null);
        }
        pageBytes += bytes;
        count(bytes);
    }

    /**
     * Whether {@code bytes} fit in the room left. Compared with {@code capacity - used}, which
     * cannot overflow (0 <= used <= capacity): {@code used + bytes} wraps to a negative number for a
     * request near {@link Long#MAX_VALUE}, which would then pass the check.
     */
    private boolean fits(long bytes) {
        return bytes <= capacity - used;
    }

    private MemorySegment[] take(int count, long bytes, List<P> taken) {
        try {
            takePages(count, taken);
            MemorySegment[] made = new MemorySegment[taken.size()];
            for (int i = 0; i < made.length; i++) {
                made[i] = segment(taken.get(i));
            }
            return made;
        } catch (Exception | Error e) {
            synchronized (lock) {
                undoTake(taken, bytes, e);
            }
            if (isRefusal(e)) {
                throw exhausted(bytes, e);
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            if (e instanceof Error r) {
                throw r;
            }
            throw new IllegalStateException("taking " + count + " pages from the engine failed", e);
        }
    }

    /**
     * Gives back the pages of an allocation that failed part way and undoes its admission, each only
     * once the engine took it back: pages the engine refuses stay counted and go back at close.
     */
    private void undoTake(List<P> taken, long bytes, Throwable failure) {
        if (!taken.isEmpty()) {
            try {
                givePages(taken);
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
                releaseFailed(e);
                stranded.addAll(taken);
                return;
            }
        }
        if (closed) {
            return;
        }
        try {
            unadmitPages(bytes);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
            releaseFailed(e);
            return;
        }
        pageBytes -= bytes;
        count(-bytes);
    }

    private void releaseFailed(Throwable e) {
        releaseFailures++;
        if (firstReleaseFailure == null) {
            firstReleaseFailure = e;
        }
    }

    /**
     * Releases the engine did not confirm (a page or reservation hook that threw), while the
     * allocator was open; what they were to give back stayed counted. Exact; never decreases.
     */
    public final long releaseFailures() {
        synchronized (lock) {
            return releaseFailures;
        }
    }

    private void register(List<P> taken, MemorySegment[] made) {
        for (int i = 0; i < made.length; i++) {
            live.put(made[i], taken.get(i));
        }
    }

    /**
     * The error for a refused request of {@code bytes}, with the numbers now.
     *
     * @param cause the engine's refusal, kept as the cause (its message says what the engine had)
     */
    protected final ResourceExhaustedException exhausted(long bytes, Throwable cause) {
        ResourceExhaustedException e =
                ResourceExhaustedException.memory(requester, bytes, usedBytes(), capacity);
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
            // Taken out of the live pages at once (a segment listed twice is found once), and put
            // back should the engine refuse them: one look-up per page on the usual path.
            List<MemorySegment> gone = new ArrayList<>(segments.size());
            List<P> pages = new ArrayList<>(segments.size());
            for (MemorySegment segment : segments) {
                P page = live.remove(segment);
                if (page != null) {
                    gone.add(segment);
                    pages.add(page);
                }
            }
            if (pages.isEmpty()) {
                return;
            }
            try {
                givePages(pages);
            } catch (RuntimeException | Error e) {
                for (int i = 0; i < gone.size(); i++) {
                    live.put(gone.get(i), pages.get(i));
                }
                releaseFailed(e);
                return;
            }
            long bytes = (long) gone.size() * pageSize;
            try {
                unadmitPages(bytes);
            } catch (RuntimeException | Error e) {
                // The pages are gone; their bytes stay counted until close gives them back.
                releaseFailed(e);
                return;
            }
            pageBytes -= bytes;
            count(-bytes);
        }
    }

    @Override
    public boolean tryReserve(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        synchronized (lock) {
            ensureOpen();
            if (bytes == 0) {
                return true;
            }
            if (!fits(bytes) || !reserveBytes(bytes)) {
                return false;
            }
            reserved += bytes;
            count(bytes);
            return true;
        }
    }

    /** Returns up to {@code bytes} of reservations; more than is reserved returns all of it. */
    @Override
    public void release(long bytes) {
        synchronized (lock) {
            long given = Math.min(Math.max(bytes, 0), reserved);
            if (given == 0) {
                return;
            }
            try {
                unreserveBytes(given);
            } catch (RuntimeException | Error e) {
                releaseFailed(e);
                return;
            }
            reserved -= given;
            count(-given);
        }
    }

    private void count(long delta) {
        long now = used + delta;
        used = now;
        if (now > peak) {
            peak = now;
        }
    }

    /** Whether {@link #close()} ran. */
    public final boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void ensureOpen() {
        if (closed) {
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
            return leaked;
        }
    }

    /**
     * Bytes the engine did not take back at {@link #close()} (a hook threw and {@link
     * #releaseEverything()} did not settle them): still counted in {@link #usedBytes()}. 0 while open
     * and after a close that gave everything back. Exact.
     */
    public final long notGivenBack() {
        synchronized (lock) {
            return closed ? used : 0;
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
        long held;
        long leftPages;
        long leftReserved;
        CleanupException.Steps steps = new CleanupException.Steps(name + " allocator");
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            held = used;
            leftPages = pageBytes / pageSize;
            leftReserved = reserved;
            leaked = held;
            if (held != 0) {
                leakFound(held);
            }
            givePagesBack(steps);
            if (reserved > 0) {
                long bytes = reserved;
                if (steps.run("give " + bytes + " reserved bytes back", () -> unreserveBytes(bytes))) {
                    count(-bytes);
                    reserved = 0;
                }
            }
            settleWithEngine(steps);
            if (releaseFailures > 0) {
                steps.fail(
                        "earlier releases",
                        releaseFailures + " release(s) the engine did not confirm while the allocator was open (first: "
                                + firstReleaseFailure + "); their memory stayed counted until this close",
                        null);
            }
        }
        IllegalStateException leak = closeEngine(held, leftPages, leftReserved);
        if (steps.failures() == 0) {
            if (leak != null) {
                throw leak;
            }
            return;
        }
        CleanupException.Steps all = new CleanupException.Steps(name + " allocator");
        if (leak != null) {
            all.fail("leak check", leak.getMessage(), leak);
        }
        CleanupException failed = steps.toException();
        all.fail("release", String.join("; ", failed.failedSteps()), failed);
        throw all.toException();
    }

    /** Close's page step: live and stranded pages to the engine, then their admitted bytes. Under the lock. */
    private void givePagesBack(CleanupException.Steps steps) {
        List<P> pages = new ArrayList<>(live.values());
        pages.addAll(stranded);
        if (!pages.isEmpty()
                && steps.run("give " + pages.size() + " pages back", () -> givePages(pages))) {
            live.clear();
            stranded.clear();
        }
        if (live.isEmpty() && stranded.isEmpty() && pageBytes > 0) {
            long bytes = pageBytes;
            if (steps.run("give " + bytes + " page bytes back", () -> unadmitPages(bytes))) {
                count(-bytes);
                pageBytes = 0;
            }
        }
    }

    /** Close's last engine step ({@link #releaseEverything()}) and what is left. Under the lock. */
    private void settleWithEngine(CleanupException.Steps steps) {
        boolean[] confirmed = new boolean[1];
        steps.run("release everything of this allocator", () -> confirmed[0] = releaseEverything());
        if (confirmed[0] && used != 0) {
            live.clear();
            stranded.clear();
            pageBytes = 0;
            reserved = 0;
            count(-used);
        }
        if (used != 0) {
            steps.fail(
                    "still held",
                    used + " bytes were not given back to the engine; usedBytes() keeps counting them",
                    null);
        }
    }
}
