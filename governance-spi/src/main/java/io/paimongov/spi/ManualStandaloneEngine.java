package io.paimongov.spi;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Optional;

/**
 * The part every standalone engine shares: a cancel the engine fires by hand ({@link
 * ManualCancellation}) and a metric system that keeps the last snapshot a write reported ({@link
 * LastSnapshotReporter}). A subclass adds its memory manager to {@link #environmentWith()} and
 * says what the engine counts as used.
 *
 * <p>Thread-safe as far as this class goes; subclasses state their own.
 */
public abstract class ManualStandaloneEngine implements StandaloneEngine {

    private final ManualCancellation cancellation = CancellationSignal.manual();
    private final LastSnapshotReporter metrics = new LastSnapshotReporter();

    /** A builder that already carries the engine's cancel signal and metrics reporter. */
    protected final EngineEnvironment.Builder environmentWith() {
        return EngineEnvironment.builder()
                .with(CancellationSignal.class, cancellation)
                .with(MetricsReporter.class, metrics);
    }

    /** Fires the engine's cancel signal; always true: this engine can cancel. */
    @Override
    public boolean cancel(String reason) {
        cancellation.cancel(reason);
        return true;
    }

    @Override
    public Optional<MetricsSnapshot> reportedMetrics() {
        return metrics.last();
    }
}
