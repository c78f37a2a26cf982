package io.paimongov.allocator.support;

import io.paimongov.spi.ResourceExhaustedException;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * The taking step of {@link PagedAllocator#allocate}: the pages of an allocation the ledger already
 * admitted, and the undo when taking fails part way.
 *
 * <p>Stateless. {@link #take} runs where the allocator says (under its lock or not); the undo under
 * its lock.
 */
final class PageTake {

    private PageTake() {}

    /**
     * Takes {@code count} pages of an admitted allocation, outside the allocator's lock or inside it
     * ({@link PagedAllocator#takesPagesUnderLock()}), and makes their segments; on a failure undoes
     * the allocation ({@link #undo}) and throws the engine's refusal as {@link
     * ResourceExhaustedException}, anything else as thrown.
     */
    static <P> MemorySegment[] take(PagedAllocator<P> a, PageLedger ledger, LivePages<P> pages, int count, long bytes, List<P> taken) {
        try {
            a.takePages(count, taken);
            MemorySegment[] made = new MemorySegment[taken.size()];
            for (int i = 0; i < made.length; i++) {
                made[i] = a.segment(taken.get(i));
            }
            return made;
        } catch (Exception | Error e) {
            synchronized (a.lock) {
                undo(a, ledger, pages, taken, bytes, e);
            }
            if (a.isRefusal(e)) {
                throw a.exhausted(bytes, e);
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            if (e instanceof Error r) {
                throw r;
            }
            throw new IllegalStateException("taking " + count + " pages from the engine failed", e);
        }
    }

    /**
     * Gives back the pages of an allocation that failed part way and undoes its admission, each only
     * once the engine took it back: pages the engine refuses stay counted and go back at close.
     */
    private static <P> void undo(PagedAllocator<P> a, PageLedger ledger, LivePages<P> pages, List<P> taken, long bytes, Throwable failure) {
        if (!taken.isEmpty()) {
            try {
                a.givePages(taken);
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
                ledger.releaseFailed(e);
                pages.strand(taken);
                return;
            }
        }
        if (ledger.isClosed()) {
            return;
        }
        try {
            a.unadmitPages(bytes);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
            ledger.releaseFailed(e);
            return;
        }
        ledger.pagesGiven(bytes);
    }
}
