package io.paimongov.heap;

import io.paimongov.allocator.support.standalone.ManualStandaloneEngine;

/**
 * The heap provider's engine on its own: a {@link HeapMemoryPool}, a manual cancel and a metrics
 * sink that keeps the last snapshot a write reported. Thread-safe.
 */
final class HeapStandaloneEngine extends ManualStandaloneEngine {

    private final HeapMemoryPool pool;

    HeapStandaloneEngine(long budgetBytes) {
        this.pool = new HeapMemoryPool(budgetBytes);
        publish(environmentWith()
                .with(HeapMemoryPool.class, pool));
    }

    @Override
    public long engineUsedBytes() {
        return pool.usedBytes();
    }
}
