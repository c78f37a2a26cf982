package io.paimongov.runtime.memory;

import io.paimongov.spi.BoundedCounters;
import io.paimongov.spi.CleanupException;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import io.paimongov.spi.ResourceExhaustedException.Resource;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One write's memory budget over an engine {@link SegmentAllocator}. Every byte the runtime holds
 * is held through a {@link MemoryReservation} made here, so the sum of live reservations is the
 * write's accounted memory and can never pass {@link #capacityBytes()}.
 *
 * <p>How it works: accounting is a single compare-and-set counter checked against the capacity
 * before the allocator is asked; the allocator is never called under a lock of ours, so an engine
 * that calls back into us to spill (Spark does) cannot deadlock with a writer. A failed request
 * leaves the counter where it was.
 *
 * <p><b>Thread-safety:</b> thread-safe; reservations may be grown and shrunk from any thread.
 */
public final class MemoryBudget {

    private final SegmentAllocator allocator;
    private final long capacity;
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final LongAdder exhausted = new LongAdder();
    private final Set<MemoryReservation> live = ConcurrentHashMap.newKeySet();
    private volatile Reclaimer reclaimer = Reclaimer.NONE;

    /** A budget of {@code allocator.capacityBytes()} bytes. */
    public MemoryBudget(SegmentAllocator allocator) {
        this.allocator = allocator;
        this.capacity = allocator.capacityBytes();
        if (capacity <= 0) {
            throw new IllegalArgumentException("allocator capacity must be positive: " + capacity);
        }
    }

    /**
     * A reservation for {@code consumer} whose bytes are reserved from the engine with {@link
     * SegmentAllocator#tryReserve}: for memory used outside pages (encoders, I/O buffers).
     */
    public MemoryReservation newReservation(String consumer) {
        return register(new MemoryReservation(this, consumer, true));
    }

    /** A reservation that only accounts; its holder takes pages from the allocator itself. */
    MemoryReservation newPageReservation(String consumer) {
        return register(new MemoryReservation(this, consumer, false));
    }

    private MemoryReservation register(MemoryReservation reservation) {
        live.add(reservation);
        return reservation;
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
        long next = BoundedCounters.tryAdd(reserved, bytes, capacity);
        if (next < 0) {
            return false;
        }
        // Read first: on the hot path the peak is rarely passed, and a read costs no write.
        if (next > peak.get()) {
            peak.accumulateAndGet(next, Math::max);
        }
        return true;
    }

    void unaccount(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /**
     * Counts a refused request and builds its error, with the budget's numbers, its five largest
     * holders and the remedy: when the budget itself had room for {@code bytes}, the engine refused
     * (other writes or consumers hold its memory) and the message says so instead of pointing at
     * {@link GovernanceOptions#MEMORY_BUDGET}.
     */
    public ResourceExhaustedException exhausted(String requester, long bytes) {
        exhausted.increment();
        long reservedNow = reservedBytes();
        return new ResourceExhaustedException(
                Resource.MEMORY, requester, bytes, reservedNow, capacity, largestHolders(5), remedy(reservedNow, bytes));
    }

    /**
     * The error for a request a write needs just to open (its fixed reservations, its first writer):
     * when the budget is short it names {@link GovernanceOptions#MEMORY_BUDGET} and the smallest
     * budget that would have held the request next to what is reserved; when the engine is short it
     * says so.
     */
    public ResourceExhaustedException tooSmall(String requester, long bytes) {
        exhausted.increment();
        long reservedNow = reservedBytes();
        String remedy =
                engineShort(reservedNow, bytes)
                        ? remedy(reservedNow, bytes)
                        : "the budget is too small for this table: raise '" + GovernanceOptions.MEMORY_BUDGET + "' from "
                                + Sizes.format(capacity) + " to at least " + Sizes.format(reservedNow + bytes);
        return new ResourceExhaustedException(
                Resource.MEMORY, requester, bytes, reservedNow, capacity, largestHolders(5), remedy);
    }

    private boolean engineShort(long reservedNow, long bytes) {
        return capacity - reservedNow >= bytes;
    }

    private String remedy(long reservedNow, long bytes) {
        if (engineShort(reservedNow, bytes)) {
            return "the write's budget had room, the engine did not (it holds "
                    + Sizes.format(allocator.usedBytes())
                    + " for this write; the rest of its memory is taken by other writes or consumers):"
                    + " give the engine more memory or run fewer writes at once; raising '"
                    + GovernanceOptions.MEMORY_BUDGET + "' does not help";
        }
        return "raise '" + GovernanceOptions.MEMORY_BUDGET + "' (now " + Sizes.format(capacity) + ")";
    }

    /** The budget in bytes. */
    public long capacityBytes() {
        return capacity;
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

    /** Bytes not reserved now. */
    public long availableBytes() {
        return capacity - reserved.get();
    }

    /** How many requests failed with {@link ResourceExhaustedException}. */
    public long exhaustedCount() {
        return exhausted.sum();
    }

    /** The {@code limit} largest live reservations, largest first. */
    public List<Holder> largestHolders(int limit) {
        return live.stream()
                .map(r -> new Holder(r.consumer(), r.bytes()))
                .filter(h -> h.bytes() > 0)
                .sorted(Comparator.comparingLong(Holder::bytes).reversed())
                .limit(limit)
                .toList();
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
        for (MemoryReservation reservation : live) {
            if (!reservation.keptAtClose()) {
                steps.run("give reservation '" + reservation.consumer() + "' back", reservation::close);
            }
        }
    }

    /** Live reservations that still hold bytes; empty once a write has given everything back. */
    public List<Holder> holders() {
        return largestHolders(Integer.MAX_VALUE);
    }
}
