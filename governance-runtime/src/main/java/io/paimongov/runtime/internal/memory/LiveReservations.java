package io.paimongov.runtime.internal.memory;

import io.paimongov.spi.CleanupException;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live reservations of one {@link MemoryBudget}: a reservation is added when the budget makes
 * it and removed when it is closed, so that a refused request can name the largest holders and the
 * write's last step can close what its holders did not.
 *
 * <p><b>Thread-safety:</b> thread-safe (a concurrent set); reservations come and go on any thread.
 */
final class LiveReservations {

    private final Set<MemoryReservation> live = ConcurrentHashMap.newKeySet();

    MemoryReservation add(MemoryReservation reservation) {
        live.add(reservation);
        return reservation;
    }

    void remove(MemoryReservation reservation) {
        live.remove(reservation);
    }

    /** The {@code limit} largest live reservations that hold bytes, largest first. */
    List<Holder> largest(int limit) {
        return live.stream()
                .map(r -> new Holder(r.consumer(), r.bytes()))
                .filter(h -> h.bytes() > 0)
                .sorted(Comparator.comparingLong(Holder::bytes).reversed())
                .limit(limit)
                .toList();
    }

    /** Closes every live reservation not kept by its holder, recording each failed close in {@code steps}. */
    void closeAll(CleanupException.Steps steps) {
        for (MemoryReservation reservation : live) {
            if (!reservation.keptAtClose()) {
                steps.run("give reservation '" + reservation.consumer() + "' back", reservation::close);
            }
        }
    }
}
