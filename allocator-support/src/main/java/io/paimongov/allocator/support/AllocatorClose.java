package io.paimongov.allocator.support;

import io.paimongov.spi.CleanupException;
import java.util.List;

/**
 * The steps of {@link PagedAllocator#close()}: give every live and stranded page back, then their
 * admitted bytes, then the reservations, then let the engine settle the rest ({@link
 * PagedAllocator#releaseEverything()}); each step runs even when an earlier one failed, and the
 * counters move only by what a step confirmed. {@link #finish} then throws what close throws.
 *
 * <p>Stateless. {@link #giveBack} runs under the allocator's lock; {@link #finish} outside it.
 */
final class AllocatorClose {

    private AllocatorClose() {}

    static <P> void giveBack(PagedAllocator<P> allocator, PageLedger ledger, LivePages<P> pages, CleanupException.Steps steps) {
        List<P> held = pages.all();
        if (!held.isEmpty() && steps.run("give " + held.size() + " pages back", () -> allocator.givePages(held))) {
            pages.clear();
        }
        long pageBytes = ledger.pageBytes();
        if (pages.isEmpty() && pageBytes > 0
                && steps.run("give " + pageBytes + " page bytes back", () -> allocator.unadmitPages(pageBytes))) {
            ledger.pagesGiven(pageBytes);
        }
        long reserved = ledger.reservedBytes();
        if (reserved > 0 && steps.run("give " + reserved + " reserved bytes back", () -> allocator.unreserveBytes(reserved))) {
            ledger.unreserved(reserved);
        }
        boolean[] confirmed = new boolean[1];
        steps.run("release everything of this allocator", () -> confirmed[0] = allocator.releaseEverything());
        if (confirmed[0] && ledger.used() != 0) {
            pages.clear();
            ledger.settled();
        }
        if (ledger.used() != 0) {
            steps.fail(
                    "still held",
                    ledger.used() + " bytes were not given back to the engine; usedBytes() keeps counting them",
                    null);
        }
        if (ledger.releaseFailures() > 0) {
            steps.fail(
                    "earlier releases",
                    ledger.releaseFailures() + " release(s) the engine did not confirm while the allocator was open (first: "
                            + ledger.firstReleaseFailure() + "); their memory stayed counted until this close",
                    null);
        }
    }

    /**
     * Throws {@code closeError} (what {@link PagedAllocator#closeEngine} returned) when every step
     * succeeded; else a {@link CleanupException} whose first step is that error, if any, and whose
     * second lists the steps that failed.
     */
    static void finish(String name, CleanupException.Steps steps, IllegalStateException closeError) {
        if (steps.failures() == 0) {
            if (closeError != null) {
                throw closeError;
            }
            return;
        }
        CleanupException.Steps all = new CleanupException.Steps(name + " allocator");
        if (closeError != null) {
            all.fail("leak check", closeError.getMessage(), closeError);
        }
        CleanupException failed = steps.toException();
        all.fail("release", String.join("; ", failed.failedSteps()), failed);
        throw all.toException();
    }
}
