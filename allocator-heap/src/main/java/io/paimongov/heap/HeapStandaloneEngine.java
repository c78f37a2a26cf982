package io.paimongov.heap;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.ManualStandaloneEngine;

/**
 * The heap provider's engine on its own: a {@link HeapMemoryPool}, a manual cancel and a metrics
 * sink that keeps the last snapshot a write reported. Thread-safe.
 */
final class HeapStandaloneEngine extends ManualStandaloneEngine {

    private final HeapMemoryPool pool;
    private final EngineEnvironment environment;

    HeapStandaloneEngine(long budgetBytes) {
        this.pool = new HeapMemoryPool(budgetBytes);
        this.environment =
                environmentWith()
                        .with(HeapMemoryPool.class, pool)
                        .build();
    }

    @Override
    public EngineEnvironment environment() {
        return environment;
    }

    @Override
    public long engineUsedBytes() {
        return pool.usedBytes();
    }

    @Override
    public void close() {}
}
