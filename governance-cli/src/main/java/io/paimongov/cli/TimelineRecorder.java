package io.paimongov.cli;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Samples one write's metrics on a thread of its own while the write runs, for the demo's {@code
 * --timeline}: the accounted memory every {@value #INTERVAL_MILLIS} ms, and an event whenever the
 * write buffers spilled or flushed since the sample before.
 *
 * <p>How it works. The sampler reads the write's snapshot ({@code ResourceContext.snapshot()}), which any thread may call,
 * so the writing thread does nothing for the timeline. Spills and flushes are seen as changes of
 * {@link MetricsSnapshot#spillCount()} and {@link MetricsSnapshot#flushCount()} between two
 * samples; an event carries how many happened in that interval (usually one). Time is measured
 * from {@link #start}, which the demo calls right after the write's resources open.
 *
 * <p><b>Thread-safety:</b> {@link #start} and {@link #stop} on the demo's thread; the sampler
 * thread owns the lists until {@link #stop} has joined it, and {@link #timeline()} reads them only
 * after that. {@link #stop} is idempotent and never throws.
 */
final class TimelineRecorder {

    static final long INTERVAL_MILLIS = 5;

    /** One sample: milliseconds since the start and the bytes accounted then. */
    record Sample(double millis, long reservedBytes) {}

    /** Spills or flushes seen in one interval, at the sample that saw them. */
    record Event(Kind kind, double millis, long reservedBytes, long count) {}

    enum Kind {
        SPILL,
        FLUSH
    }

    /**
     * What was recorded.
     *
     * @param budgetBytes the write's budget
     * @param samples the samples in time order, the last taken after the write closed
     * @param events spills and flushes in time order
     */
    record Timeline(long budgetBytes, List<Sample> samples, List<Event> events) {
        long total(Kind kind) {
            return events.stream().filter(e -> e.kind() == kind).mapToLong(Event::count).sum();
        }
    }

    private final Supplier<MetricsSnapshot> metrics;
    private final long startNanos = System.nanoTime();
    private final List<Sample> samples = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final Thread sampler;
    private volatile boolean stopped;
    private long budgetBytes;
    private long spills;
    private long flushes;

    private TimelineRecorder(Supplier<MetricsSnapshot> metrics) {
        this.metrics = metrics;
        this.sampler = new Thread(this::sampleUntilStopped, "demo-timeline-sampler");
        this.sampler.setDaemon(true);
    }

    /** Starts sampling {@code metrics} now, on a daemon thread. */
    static TimelineRecorder start(Supplier<MetricsSnapshot> metrics) {
        TimelineRecorder recorder = new TimelineRecorder(metrics);
        recorder.sample();
        recorder.sampler.start();
        return recorder;
    }

    private void sampleUntilStopped() {
        while (!stopped) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS));
            sample();
        }
    }

    private void sample() {
        MetricsSnapshot m = metrics.get();
        double millis = (System.nanoTime() - startNanos) / 1e6;
        budgetBytes = m.budgetBytes();
        samples.add(new Sample(millis, m.reservedBytes()));
        if (m.spillCount() > spills) {
            events.add(new Event(Kind.SPILL, millis, m.reservedBytes(), m.spillCount() - spills));
            spills = m.spillCount();
        }
        if (m.flushCount() > flushes) {
            events.add(new Event(Kind.FLUSH, millis, m.reservedBytes(), m.flushCount() - flushes));
            flushes = m.flushCount();
        }
    }

    /** Stops the sampler, waits for it and takes a last sample. */
    void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        boolean interrupted = false;
        while (sampler.isAlive()) {
            try {
                sampler.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        sample();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** What was recorded; call after {@link #stop()}. */
    Timeline timeline() {
        if (!stopped) {
            throw new IllegalStateException("the timeline is still being recorded");
        }
        return new Timeline(budgetBytes, List.copyOf(samples), List.copyOf(events));
    }
}
