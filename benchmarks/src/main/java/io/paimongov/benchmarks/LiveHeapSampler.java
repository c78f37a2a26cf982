package io.paimongov.benchmarks;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/*
 * How: every full collection while the sampler runs is read through the collector's own
 * notification (the heap pools' usage after the collection, summed: under the serial collector with
 * no dead space allowed, ChildJvm.MEASURING_COLLECTOR, a full collection compacts the whole heap, so
 * that is the live set). Three kinds of full
 * collection feed it:
 *
 * - those the JVM runs by itself: a heap near its limit collects often, which is when a peak
 *   matters;
 * - one of the sampler's own every everyMillis, on a thread of its own, for a heap that never fills;
 * - one of its own whenever the old generation (the largest heap pool) holds a step more than the
 *   most it held after any full collection so far (polled every POLL_MILLIS), but only when the
 *   sampler's last such collection ended at least DUTY_SHARE - 1 times its own length ago: a live
 *   set that rises shows in the old generation first, and the duty rule keeps a heap whose live set
 *   stays flat while garbage is promoted from being collected back to back (the sampler's
 *   collections then take at most about 1/DUTY_SHARE of the time).
 *
 * The writing thread may ask for one more (sampleNow) where it knows its heap is fullest, after its
 * last row and before prepareCommit. No rule reads a write's own accounting: every side of a
 * comparison (governed, plain Paimon) is sampled by the same rule, and every collection is on the
 * write's clock (nothing is subtracted), so the two sides pay for their sampling alike.
 */

/**
 * The most live heap this JVM held after any full collection while a measured write ran: the
 * outside figure the benchmarks judge a memory bound by, read from the JVM and never from the
 * write's accounting. Meant for a child JVM of its own ({@link ChildJvm}: the serial collector),
 * where the write is the only thing that changes the heap; the caller subtracts its baseline (the
 * live heap before the write opened, {@link LiveHeap#settled}).
 *
 * <p>Thread-safety: {@link #start}, {@link #sampleNow} and {@link #stop} are called by one thread
 * (the writing thread), in that order; the readings ({@link #peakBytes}, {@link #samples}, ...) may
 * be read from any thread and are final once {@link #stop} returned. The {@code onSample} callback
 * runs on the JVM's notification thread and must not block. <b>May throw:</b> {@link
 * InterruptedException} from {@link #sampleNow} and {@link #stop}.
 */
public final class LiveHeapSampler {

    /** How often the sampler's thread reads the old generation's usage. */
    public static final long POLL_MILLIS = 5;
    /**
     * The sampler's collections at old-generation highs take at most about one part in this many
     * of the time: one waits at least this many times, less one, its predecessor's length after it.
     */
    public static final int DUTY_SHARE = 10;
    /** No old-generation high yet. */
    static final long NO_HIGH = -1;

    private final long everyMillis;
    private final long stepBytes;
    private final LongConsumer onSample;
    private final AtomicBoolean running = new AtomicBoolean();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onCollection;
    private final AtomicInteger samples = new AtomicInteger();
    private Thread thread;
    private volatile long peak;
    private volatile long oldHigh = NO_HIGH;
    private volatile int ownCollections;
    private volatile long ownNanos;

    /**
     * @param everyMillis pause between the sampler's periodic collections (at least 1)
     * @param stepBytes how far the old generation must grow above its largest size after a full
     *     collection for the sampler to collect (at least 1 is used)
     * @param onSample called with every live-heap reading (bytes, the baseline not subtracted), on
     *     the notification thread; {@code null} for none
     */
    public LiveHeapSampler(long everyMillis, long stepBytes, LongConsumer onSample) {
        if (everyMillis < 1) {
            throw new IllegalArgumentException("the sampling period must be at least 1 ms, not " + everyMillis);
        }
        this.everyMillis = everyMillis;
        this.stepBytes = Math.max(1, stepBytes);
        this.onSample = onSample == null ? b -> {} : onSample;
    }

    /**
     * Starts listening to full collections and the sampler's thread; the first periodic collection
     * comes at once.
     *
     * @throws IllegalStateException when this JVM does not run {@link ChildJvm#MEASURING_COLLECTOR}
     */
    public void start() {
        LiveHeap.requireMeasuringCollector();
        running.set(true);
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
        MemoryPoolMXBean old = oldGeneration();
        thread = new Thread(() -> loop(old), "live-heap-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(MemoryPoolMXBean old) {
        long periodNanos = everyMillis * 1_000_000L;
        long lastPeriodic = System.nanoTime() - periodNanos;
        long lastEnd = Long.MIN_VALUE;
        long lastLength = 0;
        while (running.get()) {
            long now = System.nanoTime();
            boolean periodic = now - lastPeriodic >= periodNanos;
            boolean grown = old != null && grown(old.getUsage().getUsed(), oldHigh, stepBytes) && dutyAllows(now, lastEnd, lastLength);
            if (periodic || grown) {
                long end = collect();
                if (periodic) {
                    lastPeriodic = end;
                } else {
                    lastLength = end - now;
                    lastEnd = end;
                }
            }
            try {
                Thread.sleep(Math.min(everyMillis, POLL_MILLIS));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Whether an old generation holding {@code usedBytes} calls for a collection: there is no high
     * yet, or it holds at least {@code stepBytes} more than {@code highBytes}, the most it held after
     * a full collection.
     */
    static boolean grown(long usedBytes, long highBytes, long stepBytes) {
        return highBytes == NO_HIGH || usedBytes >= highBytes + stepBytes;
    }

    /**
     * Whether a collection at {@code nowNanos} keeps the duty rule: the last one, {@code
     * lastLengthNanos} long, ended at least {@code (DUTY_SHARE - 1) x} its length before.
     */
    static boolean dutyAllows(long nowNanos, long lastEndNanos, long lastLengthNanos) {
        return lastEndNanos == Long.MIN_VALUE || nowNanos - lastEndNanos >= (DUTY_SHARE - 1) * lastLengthNanos;
    }

    /** One full collection of the sampler's own; returns when it ended. */
    private long collect() {
        long begin = System.nanoTime();
        System.gc();
        long end = System.nanoTime();
        synchronized (this) {
            ownCollections++;
            ownNanos += end - begin;
        }
        return end;
    }

    /**
     * One full collection now, on the calling thread, and a wait (at most a second) for its
     * notification: the writing thread calls it after its last row and before prepareCommit, where
     * its buffered rows are all held, so that a write shorter than the sampling period is sampled at
     * its fullest too.
     */
    public void sampleNow() throws InterruptedException {
        int before = samples.get();
        collect();
        for (int i = 0; i < 100 && samples.get() == before; i++) {
            Thread.sleep(10);
        }
    }

    private void onCollection(Notification n, Object handback) {
        if (!running.get() || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (!info.getGcAction().contains("major")) {
            return;
        }
        long live = 0;
        long oldAfter = NO_HIGH;
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (HEAP_POOLS.contains(pool.getKey())) {
                live += pool.getValue().getUsed();
            }
            if (pool.getKey().equals(OLD_POOL)) {
                oldAfter = pool.getValue().getUsed();
            }
        }
        synchronized (this) {
            peak = Math.max(peak, live);
            oldHigh = Math.max(oldHigh, oldAfter);
        }
        samples.incrementAndGet();
        onSample.accept(live);
    }

    /** Stops the sampling; idempotent. */
    public void stop() throws InterruptedException {
        if (thread != null && running.getAndSet(false)) {
            thread.interrupt();
            thread.join();
            for (NotificationEmitter e : emitters) {
                try {
                    e.removeNotificationListener(listener);
                } catch (ListenerNotFoundException ignored) {
                    // already removed
                }
            }
        }
    }

    /** The most live heap any full collection left while the sampler ran, in bytes (the baseline not subtracted); 0 before any. */
    public long peakBytes() {
        return peak;
    }

    /** Full collections read: the JVM's own, the sampler's and {@link #sampleNow}'s. */
    public int samples() {
        return samples.get();
    }

    /** Full collections the sampler ran itself (periodic, at old-generation highs, {@link #sampleNow}). */
    public synchronized int ownCollections() {
        return ownCollections;
    }

    /** The time the sampler's own collections took, in milliseconds (on the write's clock). */
    public synchronized long ownCollectionMillis() {
        return ownNanos / 1_000_000;
    }

    /** The largest heap pool: the serial collector's tenured generation (two thirds of the heap); null when the JVM has none. */
    public static MemoryPoolMXBean oldGeneration() {
        MemoryPoolMXBean old = null;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getUsage().getMax() > 0
                    && (old == null || pool.getUsage().getMax() > old.getUsage().getMax())) {
                old = pool;
            }
        }
        return old;
    }

    /** Names of the heap pools (the collectors' notifications also report non-heap ones). */
    private static final Set<String> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toUnmodifiableSet());

    private static final String OLD_POOL = oldGeneration() == null ? "" : oldGeneration().getName();
}
