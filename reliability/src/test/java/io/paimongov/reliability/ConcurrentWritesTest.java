package io.paimongov.reliability;

import io.paimongov.fixtures.ConcurrentWrites;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several governed writes on real tables at once, sharing one engine (the provider's standalone
 * engine: the heap provider's {@code HeapMemoryPool}, the offheap provider's Arrow root under which
 * each write's child allocator hangs), each on its own thread, with a sampler reading the engine's
 * own counter throughout ({@link ConcurrentWrites}: in every round the engine never passes its
 * capacity and is empty at the end, a committed table equals its model, a write that did not commit
 * leaves no snapshot or data file, no spill scope is left). Closing the Arrow root is also Arrow's
 * leak check: it refuses while a child allocator is open or holds memory.
 *
 * <ul>
 *   <li>Filling the engine: four 2m writes on an 8m engine; every write commits its model.
 *   <li>Cancellation storm: two threads cancel random writes at random moments while they write,
 *       spill and prepare their commit. Every write ends committed (the table equals its model) or
 *       cancelled (no snapshot, no data file), never half; nothing is left.
 *   <li>Over-subscribed (heap pool): the writes' budgets together are twice the pool. Every write
 *       commits exactly its model or fails with {@link ResourceExhaustedException} (a new writer's
 *       first pages are taken from the engine before Paimon creates it, and the first-pages floor
 *       is never given back while the write is open), never with Paimon's own "Error getting first
 *       segment", and leaves no snapshot.
 * </ul>
 *
 * Sizes: {@code governance.reliability.rounds} rounds of 4 writes of 30000 rows, 2m budgets (CI 2 rounds).
 */
@Tag("reliability")
class ConcurrentWritesTest {

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(value = Allocator.class, names = {"HEAP", "OFFHEAP"})
    void writesThatFillTheSharedEngineCommitTheirModelAndNeverPassIt(Allocator allocator) throws Exception {
        ConcurrentWrites.fillTheEngine(allocator.provider(), dir);
    }

    @ParameterizedTest
    @EnumSource(value = Allocator.class, names = {"HEAP", "OFFHEAP"})
    void aCancellationStormLeavesEveryWriteCommittedOrCancelledNeverHalf(Allocator allocator) throws Exception {
        ConcurrentWrites.cancellationStorm(allocator.provider(), dir);
    }

    @Test
    void overSubscribedWritesOnOnePoolCommitOrFailCleanlyAndNeverPassIt() throws Exception {
        ConcurrentWrites.overSubscribeTheEngine(Allocator.HEAP.provider(), dir);
    }
}
