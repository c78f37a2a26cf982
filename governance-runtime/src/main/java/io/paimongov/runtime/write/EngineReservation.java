package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;

/**
 * A reservation of a write's budget that engine code holds, for memory the engine side of the
 * write uses outside Paimon ({@link ResourceContext#newReservation}): its bytes count against the
 * write's budget and are reserved from the engine ({@link io.paimongov.spi.SegmentAllocator#tryReserve}),
 * as every reservation the runtime makes for itself, and it is one of the write's holders ({@link
 * ResourceContext#holders()}). The runtime's own reservations are internal; this is their face for
 * an engine integration, and it adds nothing to them.
 *
 * <p>Contract: {@link #tryGrow} either completely succeeds or completely fails; if it fails,
 * nothing is reserved. {@link #grow} first asks the write to make room, as the runtime's own
 * reservations do (cached pages go back to the engine; a flush or spill when the write's call lock
 * is free), then throws {@link ResourceExhaustedException} with the
 * diagnostic numbers. {@link #shrink} and {@link #close} never throw for valid arguments; {@link
 * #close} is idempotent. One still live when the context closes is closed then.
 *
 * <p><b>Thread-safety:</b> thread-safe, but meant for one owner; no lock is held while the engine's
 * allocator is called. Growing a closed reservation, or one of a closed context, throws {@link
 * GovernanceClosedException}.
 */
public final class EngineReservation implements AutoCloseable {

    private final MemoryReservation reservation;

    EngineReservation(MemoryReservation reservation) {
        this.reservation = reservation;
    }

    /** Who holds this reservation, as shown in {@link ResourceExhaustedException} and the holders. */
    public String consumer() {
        return reservation.consumer();
    }

    /** Bytes held now. */
    public long bytes() {
        return reservation.bytes();
    }

    /**
     * Grows by {@code n} bytes if the budget and the engine allow it; in a shared memory the write
     * may first wait, at most its reclaim wait, for other writes to give memory back.
     *
     * @return whether it grew; false leaves everything unchanged
     * @throws GovernanceClosedException when closed
     * @throws IllegalArgumentException when {@code n} is negative
     */
    public boolean tryGrow(long n) {
        return reservation.tryGrow(n);
    }

    /**
     * Grows by {@code n} bytes, making room first if needed.
     *
     * @throws ResourceExhaustedException when the budget cannot cover {@code n} even after making
     *     room; nothing changed
     * @throws GovernanceClosedException when closed
     */
    public void grow(long n) {
        reservation.grow(n);
    }

    /**
     * Gives back {@code n} bytes.
     *
     * @throws IllegalArgumentException when {@code n} is negative or more than is held
     */
    public void shrink(long n) {
        reservation.shrink(n);
    }

    /**
     * Gives back everything; later calls do nothing. When the engine refuses to take the bytes back
     * (a provider breaking ALLOC.7), they stay accounted and the error is thrown.
     */
    @Override
    public void close() {
        reservation.close();
    }

    public boolean isClosed() {
        return reservation.isClosed();
    }

    /** The runtime's reservation behind this one, for the runtime's own structures charged to it. */
    MemoryReservation internal() {
        return reservation;
    }

    @Override
    public String toString() {
        return "EngineReservation[" + consumer() + ", " + bytes() + " bytes]";
    }
}
