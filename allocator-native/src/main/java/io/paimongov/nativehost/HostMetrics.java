package io.paimongov.nativehost;

import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's {@code on_metrics}: every open write's live snapshot about once a second (on the
 * host's poller thread, {@link HostCancel}) and each write's final one at its close. A metrics call
 * that fails or overruns the callback timeout is logged and counted ({@link #failures()}), never
 * fails the write; while one is still in the host, no other is made.
 *
 * <p>Thread-safe.
 */
final class HostMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(HostMetrics.class);
    static final long INTERVAL_MS = 1_000;

    private final NativeHost host;
    private final Map<Long, Supplier<MetricsSnapshot>> open = new ConcurrentHashMap<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicBoolean stuck = new AtomicBoolean();
    private volatile long lastTick = System.nanoTime();

    HostMetrics(NativeHost host) {
        this.host = host;
    }

    /** The reporter of one write, numbered {@code writeId} on this host. */
    MetricsReporter reporter(long writeId) {
        return new MetricsReporter() {
            @Override
            public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
                if (host.description().has(HostDescription.ON_METRICS)) {
                    open.put(writeId, live);
                }
            }

            @Override
            public void writeClosed(String writeName, MetricsSnapshot last) {
                open.remove(writeId);
                if (host.description().has(HostDescription.ON_METRICS)) {
                    send(writeId, last, true);
                }
            }
        };
    }

    /** Writes whose reporter was told they opened and not yet that they closed. */
    int openSources() {
        return open.size();
    }

    /** Metrics calls that failed or overran, since the host attached. */
    long failures() {
        return failures.get();
    }

    /** On the poller thread: reports the open writes when a second has passed since the last time. */
    void tick() {
        long now = System.nanoTime();
        if (open.isEmpty() || now - lastTick < INTERVAL_MS * 1_000_000) {
            return;
        }
        lastTick = now;
        open.forEach((id, live) -> send(id, live.get(), false));
    }

    private void send(long writeId, MetricsSnapshot s, boolean last) {
        if (host.detached() || stuck.get()) {
            return;
        }
        long[] values = {
            writeId, s.budgetBytes(), s.reservedBytes(), s.peakReservedBytes(), s.pageBytes(), s.estimatedBytes(),
            s.inputRows(), s.inputBytes(), s.outputFiles(), s.outputBytes(), s.spillCount(), s.spillFiles(), s.spillBytes(),
            s.compactionCount(), s.cancellations(), s.resourceExhaustedCount(), s.cleanupFailures()
        };
        AtomicBoolean returned = new AtomicBoolean();
        try {
            host.calls().call("on_metrics", () -> {
                try {
                    HostAbi.onMetrics(host.address(), values, last);
                } finally {
                    returned.set(true);
                    stuck.set(false);
                }
                return 0;
            }, null);
        } catch (NativeCallbackException e) {
            // Still in the host: no other metrics call until it returns.
            stuck.set(true);
            if (returned.get()) {
                stuck.set(false);
            }
            failures.incrementAndGet();
            LOG.warn("{}; the write goes on", e.getMessage());
        }
    }
}
