package io.paimongov.spi;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.function.Supplier;

/**
 * Where a write's metrics go: a Flink metric group, Spark task metrics, a log line. Contract:
 * docs/spi.md, clauses METRICS.1-METRICS.5.
 *
 * <p><b>Thread-safety:</b> the callbacks run on the opening and the cleanup thread; {@code live}
 * may be called from any thread (METRICS.1). <b>May throw:</b> should not; the runtime logs and
 * ignores it (METRICS.3).
 */
public interface MetricsReporter {

    /** The write opened; gauges may read {@code live} until {@link #writeClosed} (METRICS.1). */
    default void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {}

    /**
     * The write ended and released everything; {@code last} is its final snapshot (METRICS.2), to be
     * delivered whatever thread this runs on (METRICS.5).
     */
    default void writeClosed(String writeName, MetricsSnapshot last) {}

    /** A reporter that reports nowhere. */
    static MetricsReporter none() {
        return NoMetricsReporter.INSTANCE;
    }
}

enum NoMetricsReporter implements MetricsReporter {
    INSTANCE
}
