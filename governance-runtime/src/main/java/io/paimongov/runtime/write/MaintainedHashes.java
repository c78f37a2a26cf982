package io.paimongov.runtime.write;

import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.function.LongSupplier;

/**
 * Charges the key hashes Paimon's dynamic-bucket writers keep when the buckets were assigned before
 * the rows reached the write ({@link GovernedAssigner}): each writer's {@code
 * DynamicBucketIndexMaintainer} holds every key hash of its bucket, those it restored and those it
 * was given, on the heap, outside pages. The reservation {@value #CONSUMER} is kept {@value #AHEAD}
 * keys ahead of what the writers hold: the hashes are counted ({@link PaimonWriters#maintainedHashes})
 * whenever that many rows went by since the last count, so no row can add a hash that is not paid
 * for; a count that needs more grows the reservation (after making room), one that needs less gives
 * back. Charged at the measured cost per key of the hash index ({@code hash-index} in the footprint
 * table, both Paimon structures together, so an upper estimate for this one).
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call.
 */
final class MaintainedHashes {

    static final String CONSUMER = "hash index (dynamic-bucket writers)";
    static final int AHEAD = 4096;

    private final MemoryBudget budget;
    private final MemoryReservation reservation;
    private final long bytesPerKey;
    private final LongSupplier counter;
    private long rowsSinceCount = AHEAD;

    /** @param counter counts the hashes the write's writers hold now */
    MaintainedHashes(MemoryBudget budget, long bytesPerKey, LongSupplier counter) {
        this.budget = budget;
        this.bytesPerKey = bytesPerKey;
        this.counter = counter;
        this.reservation = budget.newReservation(CONSUMER);
    }

    /**
     * Before one more row goes to a dynamic-bucket writer.
     *
     * @throws ResourceExhaustedException when the hashes the writers hold cannot be charged even
     *     after making room
     */
    void beforeRow() {
        if (++rowsSinceCount > AHEAD) {
            recount();
        }
    }

    /** Counts the hashes now and charges them plus {@value #AHEAD}; at prepareCommit and every {@value #AHEAD} rows. */
    void recount() {
        long hashes = counter.getAsLong();
        long wanted = (hashes + AHEAD) * bytesPerKey;
        long held = reservation.bytes();
        if (wanted < held) {
            reservation.shrink(held - wanted);
        } else if (wanted > held && !reservation.tryGrow(wanted - held)) {
            budget.reclaim(wanted - held);
            if (!reservation.tryGrow(wanted - held)) {
                throw budget.exhausted(CONSUMER + " holding " + hashes + " keys at " + bytesPerKey + " bytes per key", wanted - held);
            }
        }
        rowsSinceCount = 0;
    }

    /** Key hashes charged for now, ahead included. */
    long chargedBytes() {
        return reservation.bytes();
    }
}
