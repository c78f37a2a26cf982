package io.paimongov.cli;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The demo's phase trace, for tests that stop the CLI from the outside at a chosen point (the
 * chaos suite): with the JVM system property {@value #PROPERTY}{@code =true} it prints one line
 * {@code phase <name>} to stderr the first time the run enters each phase, in the order entered;
 * without it, every method does nothing.
 *
 * <p>How it works. {@code write}, {@code prepareCommit}, {@code commit}, {@code readBack} and
 * {@code done} are entered by the demo's own thread ({@link #enter}). {@code spill}, {@code flush}
 * and {@code compaction} happen inside the write, some on Paimon's compaction threads, so they are
 * observed instead: while {@link #watch} runs, a daemon thread reads the write's metrics every
 * {@value #INTERVAL_MILLIS} ms, and {@code spill} is the first time {@link
 * MetricsSnapshot#spillCount()} or {@link MetricsSnapshot#spillFiles()} grows (append writers spill
 * files without counting runs), {@code flush} the first time {@link MetricsSnapshot#flushCount()}
 * grows, {@code compaction} the first time a compaction task is seen running or completed ({@link
 * MetricsSnapshot#compactionsRunning()}, {@link MetricsSnapshot#compactionCount()}). An observed line
 * can therefore come up to one interval after the event; a compaction task shorter than the
 * interval that is still running at prepareCommit shows when it completes. {@link #enter} reads the
 * metrics once first, so an event of the phase before is printed before the next phase's line.
 *
 * <p><b>Thread-safety:</b> {@link #enter}, {@link #watch} and {@link #stopWatching} on the demo's
 * thread; printing is serialized with the watcher. Never throws.
 */
final class PhaseTrace {

    /** The JVM system property that turns the trace on. */
    static final String PROPERTY = "governance.cli.trace-phases";

    static final long INTERVAL_MILLIS = 2;

    private static final PhaseTrace OFF = new PhaseTrace(null);

    private final PrintStream err;
    private final Set<String> entered = new HashSet<>();
    private volatile Supplier<MetricsSnapshot> metrics;
    private Thread watcher;

    private PhaseTrace(PrintStream err) {
        this.err = err;
    }

    /** The trace {@value #PROPERTY} asks for, printing to {@link System#err}, or one that does nothing. */
    static PhaseTrace fromSystemProperty() {
        return Boolean.getBoolean(PROPERTY) ? new PhaseTrace(System.err) : OFF;
    }

    /** A trace printing to {@code err}. */
    static PhaseTrace to(PrintStream err) {
        return new PhaseTrace(err);
    }

    /** Enters {@code phase}: prints its line unless it was entered before. */
    void enter(String phase) {
        if (err == null) {
            return;
        }
        observe();
        print(phase);
    }

    /** Starts observing spills, flushes and compaction in {@code metrics} until {@link #stopWatching}. */
    void watch(Supplier<MetricsSnapshot> metrics) {
        if (err == null) {
            return;
        }
        this.metrics = metrics;
        watcher = new Thread(this::observeUntilStopped, "demo-phase-trace");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** Stops the watcher, waits for it, and makes one last observation. Idempotent. */
    void stopWatching() {
        Thread w = watcher;
        if (w == null) {
            return;
        }
        watcher = null;
        boolean interrupted = false;
        w.interrupt();
        while (w.isAlive()) {
            try {
                w.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        observe();
        metrics = null;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void observeUntilStopped() {
        while (!Thread.currentThread().isInterrupted()) {
            observe();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS));
        }
    }

    private void observe() {
        Supplier<MetricsSnapshot> source = metrics;
        if (source == null) {
            return;
        }
        MetricsSnapshot m;
        try {
            m = source.get();
        } catch (RuntimeException e) {
            // A trace must not change the run it traces; a failed read is the next read's to retry.
            return;
        }
        if (m.spillCount() > 0 || m.spillFiles() > 0) {
            print("spill");
        }
        if (m.flushCount() > 0) {
            print("flush");
        }
        if (m.compactionsRunning() > 0 || m.compactionCount() > 0) {
            print("compaction");
        }
    }

    private synchronized void print(String phase) {
        if (entered.add(phase)) {
            err.println("phase " + phase);
            err.flush();
        }
    }
}
