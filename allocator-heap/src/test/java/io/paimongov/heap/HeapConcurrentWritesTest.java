package io.paimongov.heap;

import io.paimongov.fixtures.ConcurrentWrites;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several governed writes on real tables at once, sharing the heap engine's one pool ({@link
 * HeapMemoryPool} of the provider's standalone engine), each on its own thread, with a sampler
 * reading the pool's own counter throughout ({@link ConcurrentWrites}: in every round the pool never
 * passes its capacity and is empty at the end, a committed table equals its model, a write that did
 * not commit leaves no snapshot or data file, no spill scope is left).
 *
 * <ul>
 *   <li>Filling the pool: four 2m writes on an 8m pool; every write commits its model.
 *   <li>Over-subscribed: the writes' budgets together are twice the pool. Every write commits
 *       exactly its model or fails with {@link ResourceExhaustedException} and leaves no snapshot.
 *   <li>Cancellation storm: two threads cancel random writes at random moments while they write,
 *       spill and prepare their commit. Every write ends committed (the table equals its model) or
 *       cancelled (no snapshot, no data file), never half; nothing is left.
 * </ul>
 *
 * Sizes: {@code governance.reliability.rounds} rounds of 4 writes of 30000 rows, 2m budgets (CI 2 rounds).
 */
@Tag("reliability")
class HeapConcurrentWritesTest {

    @TempDir Path dir;

    /**
     * Budgets together twice the pool: the engine, not a write's budget, runs short. Every write
     * commits or fails with {@link ResourceExhaustedException} (a new writer's first pages are taken
     * from the engine before Paimon creates it, and the first-pages floor is never given back while
     * the write is open), never with Paimon's own "Error getting first segment".
     */
    @Test
    void overSubscribedWritesOnOnePoolCommitOrFailCleanlyAndNeverPassIt() throws Exception {
        ConcurrentWrites.overSubscribeTheEngine(new HeapGovernanceProvider(), dir);
    }

    /**
     * The pool holds every budget (4 x 2m in 8m) but not every write's wish: each write spills
     * inside its own budget, the pool is filled to its edge, and every write commits its model.
     */
    @Test
    void writesThatFillTheSharedPoolCommitTheirModelAndNeverPassIt() throws Exception {
        ConcurrentWrites.fillTheEngine(new HeapGovernanceProvider(), dir);
    }

    @Test
    void aCancellationStormLeavesEveryWriteCommittedOrCancelledNeverHalf() throws Exception {
        ConcurrentWrites.cancellationStorm(new HeapGovernanceProvider(), dir);
    }
}
