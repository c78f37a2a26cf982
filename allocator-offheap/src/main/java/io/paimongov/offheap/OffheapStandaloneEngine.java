package io.paimongov.offheap;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.ManualCancellation;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.spi.metrics.LastSnapshotReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Optional;
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
final class OffheapStandaloneEngine implements StandaloneEngine {

    private final RootAllocator root;
    private final ManualCancellation cancellation = CancellationSignal.manual();
    private final LastSnapshotReporter sink = new LastSnapshotReporter();
    private final EngineEnvironment environment;

    OffheapStandaloneEngine(long budgetBytes) {
        this.root = new RootAllocator(budgetBytes);
        this.environment =
                EngineEnvironment.builder()
                        .with(BufferAllocator.class, root)
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
        return root.getAllocatedMemory();
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
    public void close() {
        root.close();
    }
}
