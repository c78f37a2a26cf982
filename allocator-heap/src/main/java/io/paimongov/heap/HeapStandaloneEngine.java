package io.paimongov.heap;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.ManualCancellation;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.spi.metrics.LastSnapshotReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Optional;

/**
 * The heap provider's engine on its own: a {@link HeapMemoryPool}, a manual cancel and a metrics
 * sink that keeps the last snapshot a write reported. Thread-safe.
 */
final class HeapStandaloneEngine implements StandaloneEngine {

    private final HeapMemoryPool pool;
    private final ManualCancellation cancellation = CancellationSignal.manual();
    private final LastSnapshotReporter sink = new LastSnapshotReporter();
    private final EngineEnvironment environment;

    HeapStandaloneEngine(long budgetBytes) {
        this.pool = new HeapMemoryPool(budgetBytes);
        this.environment =
                EngineEnvironment.builder()
                        .with(HeapMemoryPool.class, pool)
                        .with(CancellationSignal.class, cancellation)
                        .with(MetricsReporter.class, sink)
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
    public boolean cancel(String reason) {
        cancellation.cancel(reason);
        return true;
    }

    @Override
    public Optional<MetricsSnapshot> reportedMetrics() {
        return sink.last();
    }

    @Override
    public void close() {}
}
