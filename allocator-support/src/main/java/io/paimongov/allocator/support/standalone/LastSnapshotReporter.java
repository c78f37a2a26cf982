package io.paimongov.allocator.support.standalone;

import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A {@link MetricsReporter} that keeps the final snapshot of the last write that closed: the
 * metric system of a standalone engine, which a test or the TCK reads back. It also counts the
 * writes it was told opened and not yet closed: the live sources a metric system would keep
 * gauges on ({@link StandaloneEngine#registrations()}, RES.5). Thread-safe.
 */
public final class LastSnapshotReporter implements MetricsReporter {

    private final AtomicReference<MetricsSnapshot> last = new AtomicReference<>();
    private final AtomicInteger open = new AtomicInteger();

    @Override
    public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
        open.incrementAndGet();
    }

    @Override
    public void writeClosed(String writeName, MetricsSnapshot snapshot) {
        last.set(snapshot);
        open.decrementAndGet();
    }

    /** Writes whose {@link #writeOpened} came and whose {@link #writeClosed} did not (yet). */
    int openWrites() {
        return open.get();
    }

    /** The final snapshot of the last write that closed, if any. */
    public Optional<MetricsSnapshot> last() {
        return Optional.ofNullable(last.get());
    }
}
