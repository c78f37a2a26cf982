package io.paimongov.tck;

import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The snapshots a write's metrics give while it runs, each judged against what the kit saw at the
 * same moment, never against another field of the runtime's (which its own arithmetic makes agree):
 * the budget the kit configured; the rows the kit had passed to {@code write()} (one more may be
 * inside the call); at least the memory the kit saw the allocator hold through the SPI ({@link
 * Held}: the runtime accounts a request before it asks the allocator and a release after, so it
 * never holds less than the kit counts); a peak at least the most the kit saw held. Each snapshot is
 * read between two readings of the kit's own counters, so that every check holds whenever the
 * runtime took it.
 *
 * <p>One sampler thread calls {@link #sample}; the rule reads the verdict after that thread ended.
 */
final class LiveSnapshots {

    /** Disagreements kept for the message; the rest are counted. */
    private static final int KEPT = 5;

    private final ResourceContext context;
    private final Held held;
    private final long budgetBytes;
    private final AtomicInteger written;
    private final List<String> kept = new CopyOnWriteArrayList<>();
    private volatile int disagreements;
    private volatile int samples;

    /**
     * @param held what the write's allocator holds, as the kit counts it
     * @param budgetBytes the write's budget as the kit configured it (governance.memory.budget)
     * @param written the rows the kit has passed to {@code write()} so far
     */
    LiveSnapshots(ResourceContext context, Held held, long budgetBytes, AtomicInteger written) {
        this.context = context;
        this.held = held;
        this.budgetBytes = budgetBytes;
        this.written = written;
    }

    /** Takes one snapshot and judges it. */
    void sample() {
        int rowsBefore = written.get();
        long grantedBefore = held.granted();
        long peakBefore = held.peak();
        MetricsSnapshot live = context.snapshot();
        long releasedAfter = held.released();
        int rowsAfter = written.get();
        check(live, rowsBefore, rowsAfter, grantedBefore - releasedAfter, peakBefore);
        samples++;
    }

    private void check(MetricsSnapshot live, int rowsBefore, int rowsAfter, long heldAtLeast, long peakAtLeast) {
        if (live.budgetBytes() != budgetBytes) {
            disagree("budgetBytes " + live.budgetBytes() + " while governance.memory.budget is " + budgetBytes);
        }
        if (live.inputRows() < rowsBefore || live.inputRows() > rowsAfter + 1) {
            disagree("inputRows " + live.inputRows() + " while the kit had passed " + rowsBefore + " to " + rowsAfter + " rows to write()");
        }
        if (live.reservedBytes() < heldAtLeast) {
            disagree("reservedBytes " + live.reservedBytes() + " while the write's allocator held at least " + heldAtLeast
                    + " bytes of pages and reservations, as the kit counted them through the SPI");
        }
        if (live.peakReservedBytes() < peakAtLeast) {
            disagree("peakReservedBytes " + live.peakReservedBytes() + " after the write's allocator held " + peakAtLeast
                    + " bytes at once, as the kit counted them through the SPI");
        }
    }

    private void disagree(String what) {
        if (disagreements++ < KEPT) {
            kept.add(what);
        }
    }

    /** Snapshots taken. */
    int samples() {
        return samples;
    }

    /** Whether every snapshot taken agreed with the kit. */
    boolean agreed() {
        return disagreements == 0;
    }

    /** The disagreements for a failure message: how many of how many snapshots, and the first. */
    String disagreements() {
        return disagreements + " of " + samples + " live snapshots taken during the write disagree with what the kit saw at the same time"
                + (disagreements > KEPT ? "; the first " + KEPT : "") + ": " + kept;
    }
}
