package com.example.governance;

import com.example.engine.FramePool;
import io.paimongov.allocator.support.standalone.ManualStandaloneEngine;

/**
 * The example engine on its own: a {@link FramePool}, plus the manual cancel and the metrics sink
 * that allocator-support's {@link ManualStandaloneEngine} brings. The kit reads the pool's own
 * counter, not the allocator's. Thread-safe.
 */
final class FramePoolEngine extends ManualStandaloneEngine {

    private final FramePool pool;

    FramePoolEngine(long budgetBytes) {
        this.pool = new FramePool(budgetBytes);
        publish(environmentWith().with(FramePool.class, pool));
    }

    @Override
    public long engineUsedBytes() {
        return pool.usedBytes();
    }
}
