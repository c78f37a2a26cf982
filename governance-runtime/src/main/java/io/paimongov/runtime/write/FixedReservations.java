package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.CleanupException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.List;

/**
 * The write's fixed estimate reservations, made when it opens (the flush file writer, the spill I/O
 * buffers, the lookup cache) and held until its release gives them back: their one owner.
 *
 * <p><b>Thread-safety:</b> none; the opening thread, then the release holding the write's call lock.
 */
final class FixedReservations {

    private final MemoryBudget budget;
    private final List<MemoryReservation> reservations = new ArrayList<>();

    FixedReservations(MemoryBudget budget) {
        this.budget = budget;
    }

    /**
     * Reserves {@code bytes} of {@code kind} for {@code consumer}; the reservation stays here (a caller that grows it
     * later holds it too).
     *
     * @throws ResourceExhaustedException naming the budget too small for it; the reservation is kept
     *     here, empty, for {@link #giveBack} to close
     */
    MemoryReservation reserve(ConsumerKind kind, String consumer, long bytes) {
        MemoryReservation r = budget.newReservation(kind, consumer);
        reservations.add(r);
        if (!r.tryGrow(bytes)) {
            throw budget.tooSmall(consumer, bytes);
        }
        return r;
    }

    /** Gives every reservation back, each as a step of {@code steps} that runs whatever the others did. */
    void giveBack(CleanupException.Steps steps) {
        for (MemoryReservation r : reservations) {
            steps.run("give reservation '" + r.consumer() + "' back", r::close);
        }
    }
}
