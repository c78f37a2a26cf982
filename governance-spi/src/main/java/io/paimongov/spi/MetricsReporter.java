package io.paimongov.spi;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.function.Supplier;

/**
 * Where a write's metrics go: a Flink metric group, Spark task metrics, a log line. The runtime
 * calls {@link #writeOpened} once when the write opens and {@link #writeClosed} once when it has
 * given everything back.
 *
 * <p><b>Thread-safety:</b> the callbacks run on the thread that opens or closes the write; {@code
 * live} may be called from any thread at any time and is cheap (it builds an immutable snapshot).
 * <b>May throw:</b> callbacks should not throw; the runtime logs and ignores what they throw.
 */
public interface MetricsReporter {

    /** The write opened; gauges may read {@code live} until {@link #writeClosed}. */
    default void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {}

    /** The write ended and released everything; {@code last} is its final snapshot. */
    default void writeClosed(String writeName, MetricsSnapshot last) {}

    /** A reporter that reports nowhere. */
    static MetricsReporter none() {
        return NoMetricsReporter.INSTANCE;
    }
}

enum NoMetricsReporter implements MetricsReporter {
    INSTANCE
}
