package io.paimongov.cli;

import io.paimongov.runtime.write.ResourceContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Counts the rows a write accepted and, when a limit is set, cancels the write from a thread of
 * its own once the count reaches it, the way an engine cancels a task: the writing thread only
 * counts, and learns of the cancel from the write itself ({@code WriteCancelledException} at its
 * next check point).
 *
 * <p>The watcher polls the counter every {@value #POLL_MICROS} µs, so the write runs a few rows
 * past the limit before it sees the cancel. {@link #close()} stops the watcher without cancelling
 * and waits for it, so no cancel arrives after {@code close} returns.
 *
 * <p>Thread-safe: the writing thread counts and closes, the watcher reads.
 */
final class CancelAfterRows implements AutoCloseable {

    private static final long POLL_MICROS = 100;

    private final AtomicLong rows = new AtomicLong();
    private final Thread watcher;
    private volatile boolean stopped;

    private CancelAfterRows(long limit, ResourceContext context) {
        this.watcher = limit < 0 ? null : new Thread(() -> watch(limit, context), "demo-cancel-after-rows");
    }

    /**
     * Starts counting; with {@code limit >= 0} also a daemon thread that cancels {@code context}'s write once
     * {@code limit} rows were counted.
     */
    static CancelAfterRows start(long limit, ResourceContext context) {
        CancelAfterRows c = new CancelAfterRows(limit, context);
        if (c.watcher != null) {
            c.watcher.setDaemon(true);
            c.watcher.start();
        }
        return c;
    }

    private void watch(long limit, ResourceContext context) {
        while (!stopped && rows.get() < limit) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_MICROS));
        }
        if (!stopped) {
            context.cancel("--cancel-after-rows " + limit);
        }
    }

    /** Counts one row the write accepted; returns the count. */
    long rowWritten() {
        return rows.incrementAndGet();
    }

    long rows() {
        return rows.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        if (watcher != null) {
            watcher.join();
        }
    }
}
