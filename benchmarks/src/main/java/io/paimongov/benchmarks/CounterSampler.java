package io.paimongov.benchmarks;

import java.util.function.LongSupplier;

/**
 * The most an engine's own memory counter and the JVM's native memory ({@link NativeMemory}) held
 * while a measured write ran: the two outside figures beside the live heap ({@link
 * LiveHeapSampler}) that judge an off-heap or engine-managed bound. A thread of its own reads both
 * every {@code everyMillis}; each read is cheap (a counter, and about 0.1 ms for the native report),
 * so the period can be short enough to see peaks that last a few milliseconds. For the native
 * memory, the peak NMT keeps itself ({@link NativeMemory.Reading#peakBytes}) is also taken, when it
 * rose while the sampler ran, so a peak between two reads is not lost; an engine that keeps its own
 * peak is read by the caller.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} are called by one thread, in that order; the
 * readings may be read from any thread and are final once {@link #stop} returned. <b>May
 * throw:</b> {@link IllegalStateException} from {@link #start} when the JVM does not track native
 * memory; {@link InterruptedException} from {@link #stop}.
 */
public final class CounterSampler {

    private final long everyMillis;
    private final LongSupplier engineUsed;
    private Thread thread;
    private volatile boolean running;
    private long nativePeakAtStart;
    private volatile long enginePeak;
    private volatile long nativePeak;
    private volatile int samples;

    /**
     * @param everyMillis pause between two reads (at least 1)
     * @param engineUsed the engine's own counter of memory taken, in bytes; thread-safe
     */
    public CounterSampler(long everyMillis, LongSupplier engineUsed) {
        if (everyMillis < 1) {
            throw new IllegalArgumentException("the sampling period must be at least 1 ms, not " + everyMillis);
        }
        this.everyMillis = everyMillis;
        this.engineUsed = engineUsed;
    }

    /** Reads both once on the calling thread, then starts the sampler's thread. */
    public void start() {
        NativeMemory.Reading first = NativeMemory.read();
        nativePeakAtStart = first.peakBytes();
        nativePeak = first.committedBytes();
        enginePeak = engineUsed.getAsLong();
        samples = 1;
        running = true;
        thread = new Thread(this::loop, "counter-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            sample();
            try {
                Thread.sleep(everyMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample() {
        long engine = engineUsed.getAsLong();
        long nativeBytes = NativeMemory.read().committedBytes();
        enginePeak = Math.max(enginePeak, engine);
        nativePeak = Math.max(nativePeak, nativeBytes);
        samples++;
    }

    /** Stops the thread, then reads both once more and NMT's own peak; idempotent. */
    public void stop() throws InterruptedException {
        if (thread != null && running) {
            running = false;
            thread.interrupt();
            thread.join();
            sample();
            NativeMemory.Reading last = NativeMemory.read();
            // NMT's peak is since the JVM started: it tells of this run only when it rose during it.
            if (last.peakBytes() > nativePeakAtStart) {
                nativePeak = Math.max(nativePeak, last.peakBytes());
            }
        }
    }

    /** The most the engine's counter read, in bytes. */
    public long enginePeakBytes() {
        return enginePeak;
    }

    /** The most the native category held, in bytes (no baseline subtracted). */
    public long nativePeakBytes() {
        return nativePeak;
    }

    /** Reads taken, the first and the last included. */
    public int samples() {
        return samples;
    }
}
