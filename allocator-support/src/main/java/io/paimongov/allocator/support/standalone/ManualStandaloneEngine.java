package io.paimongov.allocator.support.standalone;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Map;
import java.util.Optional;

/**
 * The part every standalone engine shares: a cancel the engine fires by hand ({@link
 * ManualCancellation}) and a metric system that keeps the last snapshot a write reported ({@link
 * LastSnapshotReporter}), and the count of what writes registered with those two ({@link
 * #registrations()}). A subclass adds its memory manager to {@link #environmentWith()} and says
 * what the engine counts as used.
 *
 * <p>Thread-safe as far as this class goes; subclasses state their own.
 */
public abstract class ManualStandaloneEngine implements StandaloneEngine {

    /** The kind {@link #registrations()} counts the listeners of an engine's cancel under. */
    public static final String CANCEL_LISTENERS = "cancel listeners";

    /** The kind {@link #registrations()} counts the writes open in an engine's metric system under. */
    public static final String METRIC_SOURCES = "metric sources";

    private final ManualCancellation cancellation = new ManualCancellation();
    private final LastSnapshotReporter metrics = new LastSnapshotReporter();
    private volatile EngineEnvironment environment;

    /** A builder that already carries the engine's cancel signal and metrics reporter. */
    protected final EngineEnvironment.Builder environmentWith() {
        return EngineEnvironment.builder()
                .with(CancellationSignal.class, cancellation)
                .with(MetricsReporter.class, metrics);
    }

    /**
     * Sets what {@link #environment()} returns, once, from the subclass's constructor: {@code
     * engineObjects} is {@link #environmentWith()} with the engine's own objects added.
     */
    protected final void publish(EngineEnvironment.Builder engineObjects) {
        this.environment = engineObjects.build();
    }

    /** What {@link #publish} set. */
    @Override
    public EngineEnvironment environment() {
        return environment;
    }

    /** Nothing to release; an engine that holds resources overrides this. */
    @Override
    public void close() {}

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

    /**
     * The listeners of the manual cancel ({@code cancel listeners}) and the writes open in the
     * metric sink ({@code metric sources}). A subclass that puts a cancel, a metric system or other
     * engine objects of its own into the environment counts those instead, or as well.
     */
    @Override
    public Optional<Map<String, Integer>> registrations() {
        return Optional.of(Map.of(CANCEL_LISTENERS, cancellation.listenerCount(), METRIC_SOURCES, metrics.openWrites()));
    }
}
