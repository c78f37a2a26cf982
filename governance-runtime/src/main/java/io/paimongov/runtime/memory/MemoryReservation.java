package io.paimongov.runtime.memory;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;

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
 */
public final class MemoryReservation implements AutoCloseable {

    private final MemoryBudget budget;
    private final String consumer;
    private final boolean reserveFromEngine;
    private long bytes;
    private boolean closed;

    MemoryReservation(MemoryBudget budget, String consumer, boolean reserveFromEngine) {
        this.budget = budget;
        this.consumer = consumer;
        this.reserveFromEngine = reserveFromEngine;
    }

    /** Who holds this reservation, as shown in {@link ResourceExhaustedException}. */
    public String consumer() {
        return consumer;
    }

    /** Bytes held now. */
    public synchronized long bytes() {
        return bytes;
    }

    /**
     * Grows by {@code n} bytes if the budget and the engine allow it.
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
        if (reserveFromEngine && !budget.allocator().tryReserve(n)) {
            budget.unaccount(n);
            return false;
        }
        synchronized (this) {
            if (!closed) {
                bytes += n;
                return true;
            }
        }
        giveBack(n);
        throw closedError();
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
        synchronized (this) {
            if (n > bytes) {
                throw new IllegalArgumentException(
                        "'" + consumer + "' cannot shrink by " + n + " bytes; it holds " + bytes);
            }
            bytes -= n;
        }
        giveBack(n);
    }

    /** Gives back everything; later calls do nothing. */
    @Override
    public void close() {
        long held;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            held = bytes;
            bytes = 0;
        }
        giveBack(held);
        budget.unregister(this);
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    private void giveBack(long n) {
        if (n == 0) {
            return;
        }
        if (reserveFromEngine) {
            budget.allocator().release(n);
        }
        budget.unaccount(n);
    }

    private synchronized void ensureOpen() {
        if (closed) {
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
