package io.paimongov.spi;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link MetricsReporter} that keeps the final snapshot of the last write that closed: the
 * metric system of a standalone engine, which a test or the TCK reads back. Thread-safe.
 */
public final class LastSnapshotReporter implements MetricsReporter {

    private final AtomicReference<MetricsSnapshot> last = new AtomicReference<>();

    @Override
    public void writeClosed(String writeName, MetricsSnapshot snapshot) {
        last.set(snapshot);
    }

    /** The final snapshot of the last write that closed, if any. */
    public Optional<MetricsSnapshot> last() {
        return Optional.ofNullable(last.get());
    }
}
