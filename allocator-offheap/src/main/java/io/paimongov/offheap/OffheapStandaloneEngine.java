package io.paimongov.offheap;

import io.paimongov.allocator.support.standalone.ManualStandaloneEngine;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The off-heap provider's engine on its own: a {@link RootAllocator} limited to the budget, passed
 * as the engine's {@link BufferAllocator} so every write's child allocator hangs under it, a manual
 * cancel and a metrics sink that keeps the last snapshot a write reported. {@link
 * #engineUsedBytes()} is the root's own counter.
 *
 * <p>Thread-safe. {@link #close()} closes the root; Arrow throws {@link IllegalStateException} from
 * it when a write's child allocator is still open or left memory behind.
 */
final class OffheapStandaloneEngine extends ManualStandaloneEngine {

    private final RootAllocator root;

    OffheapStandaloneEngine(long budgetBytes) {
        this.root = new RootAllocator(budgetBytes);
        publish(environmentWith()
                .with(BufferAllocator.class, root));
    }

    @Override
    public long engineUsedBytes() {
        return root.getAllocatedMemory();
    }

    @Override
    public void close() {
        root.close();
    }
}
