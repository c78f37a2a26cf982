package io.paimongov.flink;

import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reports to each of {@code reporters} in turn: the engine's sink and Flink's metric group.
 * Thread-safe as each reporter is.
 */
record AllReporters(List<MetricsReporter> reporters) implements MetricsReporter {

    @Override
    public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
        reporters.forEach(r -> r.writeOpened(writeName, live));
    }

    @Override
    public void writeClosed(String writeName, MetricsSnapshot last) {
        reporters.forEach(r -> r.writeClosed(writeName, last));
    }
}
