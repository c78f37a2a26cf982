package io.paimongov.runtime.internal.memory;

import io.paimongov.runtime.internal.counters.BoundedAdd;
import io.paimongov.spi.CleanupException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * One write's memory budget over an engine {@link SegmentAllocator}. Every byte the runtime holds
 * is held through a {@link MemoryReservation} made here, so the sum of live reservations is the
 * write's accounted memory and a reservation grows only within {@link #capacityBytes()}.
 *
 * <p>How it works: accounting is a single compare-and-set counter checked against the capacity
 * before the allocator is asked; the allocator is never called under a lock of ours, so an engine
 * that calls back into us to spill (Spark does) cannot deadlock with a writer. A failed request
 * leaves the counter where it was.
 *
 * <p>Capacity. A budget made with {@link #MemoryBudget(SegmentAllocator)} has the allocator's
 * capacity for its whole life. A budget of a write in a {@link MemoryArbiter shared memory} ({@link
 * #member}) starts at the write's share and the pool moves it: a request that does not fit asks the pool, which may
 * lend the write capacity others leave unused, or take capacity back from borrowers for it, on the
 * requesting thread (which may then wait, boundedly, for the borrowers to give memory back). When
 * the pool lowers the capacity below what the budget reserves, the write owes the difference
 * ({@link #owedBytes()}) and gives it back at its next safe point; until then no reservation grows.
 *
 * <p><b>Thread-safety:</b> thread-safe; reservations may be grown and shrunk from any thread.
 */
public final class MemoryBudget {

    private final SegmentAllocator allocator;
    /** Fixed outside a pool; moved by the pool, under its lock, inside one. */
    private volatile long capacity;
    /** The write's place in a shared memory; null outside one. */
    private final PoolMember member;
    /**
     * The member's {@link PoolMember#reclaimRequests()} the write last answered with a flush.
     * Touched only by the writing thread, under the write's call lock.
     */
    private long answeredRequests;
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final LongAdder exhausted = new LongAdder();
    private final LongAdder relievedCount = new LongAdder();
    private final LongAdder relievedBytes = new LongAdder();
    private final LiveReservations live = new LiveReservations();
    private volatile Reclaimer reclaimer = Reclaimer.NONE;

    /** A budget of {@code allocator.capacityBytes()} bytes. */
    public MemoryBudget(SegmentAllocator allocator) {
        this.allocator = allocator;
        this.capacity = positiveCapacity(allocator);
        this.member = null;
    }

    private MemoryBudget(SegmentAllocator allocator, MemoryArbiter pool, String writeName, long shareBytes, long reclaimWaitNanos,
            BooleanSupplier cancelled) {
        this.allocator = allocator;
        long ceiling = positiveCapacity(allocator);
        if (shareBytes <= 0 || shareBytes > ceiling) {
            throw new IllegalArgumentException("the share of write '" + writeName + "' must be from 1 to its allocator's capacity ("
                    + ceiling + " bytes): " + shareBytes);
        }
        this.capacity = 0;
        this.member = new PoolMember(pool, "write '" + writeName + "'", shareBytes, ceiling, this, reclaimWaitNanos, cancelled);
        pool.join(member);
    }

    /**
     * A budget of write {@code writeName} that joins {@code pool} with {@code shareBytes} guaranteed
     * (at most the allocator's capacity, the most it may borrow up to). It leaves the pool at {@link
     * #leavePool()}. A request that needs its share back waits at most {@code reclaimWaitMillis} for
     * borrowers to give memory back, and not at all once {@code cancelled} is true.
     *
     * @throws IllegalArgumentException for a share that is not positive or above the allocator's
     *     capacity
     * @throws ResourceExhaustedException when the pool's limit cannot hold the share next to its
     *     members'; nothing joined
     */
    public static MemoryBudget member(SegmentAllocator allocator, MemoryArbiter pool, String writeName, long shareBytes,
            long reclaimWaitMillis, BooleanSupplier cancelled) {
        return new MemoryBudget(allocator, pool, writeName, shareBytes, TimeUnit.MILLISECONDS.toNanos(reclaimWaitMillis), cancelled);
    }

    private static long positiveCapacity(SegmentAllocator allocator) {
        long capacity = allocator.capacityBytes();
        if (capacity <= 0) {
            throw new IllegalArgumentException("allocator capacity must be positive: " + capacity);
        }
        return capacity;
    }

    /** Leaves the shared memory the budget joined (the write's last step); idempotent; nothing outside one. */
    public void leavePool() {
        if (member != null) {
            member.pool.leave(member);
        }
    }

    /**
     * A reservation for {@code consumer} whose bytes are reserved from the engine with {@link
     * SegmentAllocator#tryReserve}, as {@code kind}: for memory used outside pages (encoders, I/O buffers).
     */
    public MemoryReservation newReservation(ConsumerKind kind, String consumer) {
        return register(new MemoryReservation(this, kind, consumer, true));
    }

    /** {@link #newReservation(ConsumerKind, String)} of kind {@link ConsumerKind#OTHER}. */
    public MemoryReservation newReservation(String consumer) {
        return newReservation(ConsumerKind.OTHER, consumer);
    }

    /** A reservation that only accounts; its holder takes pages from the allocator itself. */
    MemoryReservation newPageReservation(String consumer) {
        return register(new MemoryReservation(this, ConsumerKind.WRITE_BUFFER, consumer, false));
    }

    private MemoryReservation register(MemoryReservation reservation) {
        return live.add(reservation);
    }

    void unregister(MemoryReservation reservation) {
        live.remove(reservation);
    }

    /** Installs what {@link MemoryReservation#grow} calls to make room. Called once per write. */
    public void setReclaimer(Reclaimer reclaimer) {
        this.reclaimer = reclaimer == null ? Reclaimer.NONE : reclaimer;
    }

    Reclaimer reclaimer() {
        return reclaimer;
    }

    /**
     * The engine asks for {@code bytes} back ({@link io.paimongov.spi.SegmentAllocator.MemoryRelief}, bound to the
     * allocator): runs the reclaimer as {@link #reclaim} does and counts the request in {@link
     * #reclaimedFromCount()} and what it freed in {@link #reclaimedFromBytes()}.
     *
     * @return the bytes freed
     */
    public long relieve(long bytes) {
        long freed = reclaim(bytes);
        relievedCount.increment();
        relievedBytes.add(freed);
        return freed;
    }

    /**
     * Runs the reclaimer on this thread to free {@code bytes}; see {@link Reclaimer} for what it
     * may do on which thread.
     *
     * @return the bytes freed
     */
    public long reclaim(long bytes) {
        try {
            return reclaimer.reclaim(bytes);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("making room for " + bytes + " bytes failed", e);
        }
    }

    SegmentAllocator allocator() {
        return allocator;
    }

    boolean tryAccount(long bytes) {
        // While a member of the pool owes, the capacity is not all in the engine: the pool decides.
        long next = member != null && member.pool.mayOwe() ? -1 : addWithinCapacity(bytes);
        if (next >= 0 && member != null && member.pool.mayOwe()) {
            // A debt appeared while this added: the pool, which read the reservations after marking
            // it, may have counted on room this add took. Asked again through the pool.
            reserved.addAndGet(-bytes);
            next = -1;
        }
        if (next < 0 && member != null) {
            next = member.pool.reserve(member, bytes);
        }
        if (next < 0) {
            return false;
        }
        // Read first: on the hot path the peak is rarely passed, and a read costs no write.
        if (next > peak.get()) {
            peak.accumulateAndGet(next, Math::max);
        }
        return true;
    }

    /**
     * Adds {@code bytes} if they fit in the capacity now, asking nobody. In a shared memory the pool
     * may lend this budget's unused capacity at the same moment ({@link #lendUnused}): the add reads
     * the capacity again after it and undoes itself when the capacity fell below it. The lender
     * lowers the capacity before it reads the reservations and this add changes them before it reads
     * the capacity (all volatile), so at least one of the two sees the other and backs off.
     *
     * @return the reserved bytes after the add, or -1 when they did not fit (nothing changed)
     */
    long addWithinCapacity(long bytes) {
        long next = BoundedAdd.addWithin(reserved, bytes, capacity);
        if (next >= 0 && member != null && next > capacity) {
            reserved.addAndGet(-bytes);
            return -1;
        }
        return next;
    }

    /**
     * Under the pool's lock: lowers the capacity by {@code bytes} the budget does not reserve, for
     * another member; see {@link #addWithinCapacity} for a reservation racing it.
     *
     * @return whether it was lowered (false: a reservation took the bytes meanwhile; nothing changed)
     */
    boolean lendUnused(long bytes) {
        long before = capacity;
        capacity = before - bytes;
        if (reserved.get() > before - bytes) {
            capacity = before;
            return false;
        }
        return true;
    }

    /** Under the pool's lock. */
    void setCapacity(long bytes) {
        capacity = bytes;
    }

    void unaccount(long bytes) {
        reserved.addAndGet(-bytes);
        if (member != null) {
            member.pool.released();
        }
    }

    /**
     * Counts a refused request and builds its error, with the budget's numbers, its five largest
     * holders and the remedy ({@link MemoryErrors#exhausted}).
     */
    public ResourceExhaustedException exhausted(String requester, long bytes) {
        exhausted.increment();
        return MemoryErrors.exhausted(this, requester, bytes);
    }

    /**
     * Counts and builds the error for a request a write needs just to open (its fixed reservations,
     * its first writer): {@link MemoryErrors#tooSmall}.
     */
    public ResourceExhaustedException tooSmall(String requester, long bytes) {
        exhausted.increment();
        return MemoryErrors.tooSmall(this, requester, bytes);
    }

    /** The write's place in a shared memory; null outside one. */
    PoolMember member() {
        return member;
    }

    /**
     * The capacity now: the allocator's capacity outside a shared memory; inside one, the share plus
     * what the write borrowed, less what it lent (moved by the pool).
     */
    public long capacityBytes() {
        return capacity;
    }

    /**
     * The capacity the write is guaranteed: its share of the shared memory it joined, else its fixed
     * capacity. What a write plans its memory with (footprint, writers of its own, the shared sort),
     * so that the plan does not move with what it borrows.
     */
    public long shareBytes() {
        return member != null ? member.share : capacity;
    }

    /** Capacity above the share now (exact); 0 outside a shared memory. */
    public long borrowedBytes() {
        return member != null ? member.borrowedBytes() : 0;
    }

    /** The most capacity ever held above the share (exact); 0 outside a shared memory. */
    public long peakBorrowedBytes() {
        return member != null ? member.peakBorrowedBytes() : 0;
    }

    /**
     * Times another consumer took memory from this write (exact): a member of the shared memory that
     * lowered this write's capacity to get its share back, and the engine asking for memory back
     * ({@link #relieve}). The pool shrinking as a member leaves lowers borrowers too; that is no
     * consumer's reclaim and is not counted.
     */
    public long reclaimedFromCount() {
        return relievedCount.sum() + (member != null ? member.reclaimedFromCount() : 0);
    }

    /** Capacity the pool lowered for those, plus the bytes the engine's requests freed (exact). */
    public long reclaimedFromBytes() {
        return relievedBytes.sum() + (member != null ? member.reclaimedFromBytes() : 0);
    }

    /** Times this write took capacity back from borrowers to get its share (exact); 0 outside a shared memory. */
    public long reclaimedByCount() {
        return member != null ? member.reclaimedByCount() : 0;
    }

    /** The capacity it took back so (exact); 0 outside a shared memory. */
    public long reclaimedByBytes() {
        return member != null ? member.reclaimedByBytes() : 0;
    }

    /**
     * What the budget reserves above its capacity: what the pool took back from the write and the
     * write has not given back yet. 0 outside a shared memory (barring a reservation that raced a
     * lowering).
     */
    public long owedBytes() {
        return reserved.get() - capacity;
    }

    /**
     * Whether the pool lowered this write below what it holds since the last call that returned
     * true: the write's safe point then makes Paimon flush or spill ({@link Reclaimer}); between two
     * such requests it only gives cached pages back, so that a debt the write cannot pay does not
     * flush a writer at every row. Called by the writing thread.
     */
    public boolean takeReclaimRequest() {
        if (member == null) {
            return false;
        }
        long requests = member.reclaimRequests();
        if (requests == answeredRequests) {
            return false;
        }
        answeredRequests = requests;
        return true;
    }

    /** Bytes reserved now, pages included (exact). */
    public long reservedBytes() {
        return reserved.get();
    }

    /** The most bytes ever reserved at once (exact). */
    public long peakBytes() {
        // The peak is raised right after the counter, so a reader between the two sees the counter.
        return Math.max(peak.get(), reserved.get());
    }

    /**
     * Bytes the write may still reserve without waiting for its own memory: its capacity, or its
     * share when it lent capacity below it (a request within the share takes it back), less what is
     * reserved; never below 0.
     */
    public long availableBytes() {
        long room = member != null ? Math.max(capacity, member.share) : capacity;
        return Math.max(0, room - reserved.get());
    }

    /** How many requests failed with {@link ResourceExhaustedException}. */
    public long exhaustedCount() {
        return exhausted.sum();
    }

    /** The {@code limit} largest live reservations, largest first. */
    public List<Holder> largestHolders(int limit) {
        return live.largest(limit);
    }

    /**
     * Closes every live reservation (the write's last step), each even when closing another threw
     * (the engine refused to take its bytes back: they then stay accounted, see {@link
     * MemoryReservation#close()}); a reservation kept by its holder ({@link
     * MemoryReservation#keepAtClose()}) is left as it is. Later reservations still work.
     *
     * @throws CleanupException naming each reservation whose close failed
     */
    public void closeAll() {
        CleanupException.Steps steps = new CleanupException.Steps("the budget's reservations");
        closeAll(steps);
        steps.throwIfFailed();
    }

    /** As {@link #closeAll()}, recording each failed close in {@code steps} instead of throwing. */
    public void closeAll(CleanupException.Steps steps) {
        live.closeAll(steps);
    }

    /** Live reservations that still hold bytes; empty once a write has given everything back. */
    public List<Holder> holders() {
        return largestHolders(Integer.MAX_VALUE);
    }
}
