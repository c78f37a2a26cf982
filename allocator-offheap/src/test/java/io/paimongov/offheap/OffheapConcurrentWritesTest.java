package io.paimongov.offheap;

import io.paimongov.fixtures.ConcurrentWrites;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several governed writes on real tables at once, sharing one Arrow root allocator (the offheap
 * provider's standalone engine: each write's child allocator hangs under it), each on its own
 * thread, with a sampler reading the root's own counter throughout ({@link ConcurrentWrites}, the
 * rounds HeapConcurrentWritesTest in allocator-heap runs too). Closing the engine closes the root,
 * which Arrow refuses while a child allocator is open or holds memory: the end of each round is
 * also Arrow's leak check. Two of the scenarios: four 2m writes filling an 8m root, each committing
 * its model; and a cancellation storm, after which every write is committed or cancelled, never
 * half. Sizes: {@code governance.reliability.rounds} rounds of 4 writes of 30000 rows (CI 2 rounds).
 */
@Tag("reliability")
class OffheapConcurrentWritesTest {

    @TempDir Path dir;

    @Test
    void writesThatFillTheSharedPoolCommitTheirModelAndNeverPassIt() throws Exception {
        ConcurrentWrites.fillTheEngine(new OffheapGovernanceProvider(), dir);
    }

    @Test
    void aCancellationStormLeavesEveryWriteCommittedOrCancelledNeverHalf() throws Exception {
        ConcurrentWrites.cancellationStorm(new OffheapGovernanceProvider(), dir);
    }
}
