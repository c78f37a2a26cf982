package io.paimongov.runtime.internal.memory;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A guard over bytes of a {@link MemoryBudget}, owned by one consumer (a writer's format encoder,
 * the write buffer's pages, compaction). Grows and shrinks; {@link #close()} gives everything back.
 *
 * <p>Contract: {@link #tryGrow} either completely succeeds or completely fails; if it fails, no
 * changes are made to accounting. {@link #grow} first asks the budget's {@link Reclaimer} to make
 * room, then throws {@link ResourceExhaustedException} with the diagnostic numbers. {@link
 * #shrink} and {@link #close} never throw for valid arguments; {@link #close} is idempotent.
 *
 * <p><b>Thread-safety:</b> thread-safe, but meant for one owner. No lock of ours is held while the
 * engine's allocator is called. Growing a closed reservation throws {@link
 * GovernanceClosedException}.
 *
 * <p>How it works: the bytes held and the closed state are one atomic word ({@link #CLOSED} once
 * closed), changed by compare-and-set, so a grow and a shrink take no lock: they are the hot path
 * of every writer's accounting outside pages.
 */
public final class MemoryReservation implements AutoCloseable {

    private final MemoryBudget budget;
    private final ConsumerKind kind;
    private final String consumer;
    private final boolean reserveFromEngine;
    /** {@link #state} once closed; held bytes are never negative. */
    private static final long CLOSED = -1;

    /** Bytes held, or {@link #CLOSED}. */
    private final AtomicLong state = new AtomicLong();
    private volatile boolean keptAtClose;

    MemoryReservation(MemoryBudget budget, ConsumerKind kind, String consumer, boolean reserveFromEngine) {
        this.budget = budget;
        this.kind = kind;
        this.consumer = consumer;
        this.reserveFromEngine = reserveFromEngine;
    }

    /** Who holds this reservation, as shown in {@link ResourceExhaustedException}. */
    public String consumer() {
        return consumer;
    }

    /** What the bytes are for, as the allocator is told (ALLOC.16). */
    public ConsumerKind kind() {
        return kind;
    }

    /** Bytes held now. */
    public long bytes() {
        return Math.max(0, state.get());
    }

    /**
     * Grows by {@code n} bytes if the budget and the engine allow it. In a {@link MemoryArbiter
     * shared memory} the budget may first ask the pool for capacity, and wait (at most the write's
     * reclaim wait, not at all once the write is cancelled) for other writes to give memory back.
     *
     * @return whether it grew; false leaves accounting unchanged
     * @throws GovernanceClosedException when closed
     */
    public boolean tryGrow(long n) {
        checkNonNegative(n);
        ensureOpen();
        if (n == 0) {
            return true;
        }
        if (!budget.tryAccount(n)) {
            return false;
        }
        if (reserveFromEngine && !budget.allocator().tryReserve(n, kind)) {
            budget.unaccount(n);
            return false;
        }
        while (true) {
            long held = state.get();
            if (held == CLOSED) {
                giveBack(n);
                throw closedError();
            }
            if (state.compareAndSet(held, held + n)) {
                return true;
            }
        }
    }

    /**
     * Grows by {@code n} bytes, making room first if needed.
     *
     * @throws ResourceExhaustedException when the budget cannot cover {@code n} even after the
     *     reclaimer ran; accounting is unchanged
     */
    public void grow(long n) {
        if (tryGrow(n)) {
            return;
        }
        budget.reclaim(n);
        if (!tryGrow(n)) {
            throw budget.exhausted(consumer, n);
        }
    }

    /**
     * Gives back {@code n} bytes.
     *
     * @throws IllegalArgumentException when {@code n} is more than is held
     */
    public void shrink(long n) {
        checkNonNegative(n);
        while (true) {
            long now = state.get();
            long held = Math.max(0, now);
            if (n > held) {
                throw new IllegalArgumentException("'" + consumer + "' cannot shrink by " + n + " bytes; it holds " + held);
            }
            if (n == 0 || state.compareAndSet(now, held - n)) {
                break;
            }
        }
        giveBack(n);
    }

    /**
     * Gives back everything; later calls do nothing. The bytes leave the budget only after the
     * engine took them back: when {@link io.paimongov.spi.SegmentAllocator#release(long)} throws (a
     * provider breaking ALLOC.7), they stay accounted, the reservation stays among the holders, and
     * the error is thrown.
     */
    @Override
    public void close() {
        long held = state.getAndSet(CLOSED);
        if (held == CLOSED) {
            return;
        }
        giveBack(held);
        budget.unregister(this);
    }

    /**
     * Leaves this reservation out of {@link MemoryBudget#closeAll}: its holder could not give its
     * memory back (the pool, when the engine refused its pages) and keeps it accounted.
     */
    void keepAtClose() {
        keptAtClose = true;
    }

    boolean keptAtClose() {
        return keptAtClose;
    }

    public boolean isClosed() {
        return state.get() == CLOSED;
    }

    private void giveBack(long n) {
        if (n == 0) {
            return;
        }
        if (reserveFromEngine) {
            budget.allocator().release(n, kind);
        }
        budget.unaccount(n);
    }

    private void ensureOpen() {
        if (state.get() == CLOSED) {
            throw closedError();
        }
    }

    private GovernanceClosedException closedError() {
        return new GovernanceClosedException("memory reservation '" + consumer + "' is closed");
    }

    private static void checkNonNegative(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + n);
        }
    }

    @Override
    public String toString() {
        return "MemoryReservation[" + consumer + ", " + bytes() + " bytes]";
    }
}
