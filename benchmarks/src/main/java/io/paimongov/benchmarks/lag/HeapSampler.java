package io.paimongov.benchmarks.lag;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The largest live heap of a lag child while it writes, measured from outside the write's
 * accounting: what the heap pools held right after each full collection, read from the collector's
 * own notification. Two sources of full collections: one of its own every {@code everyMillis} on a
 * thread of its own, the same period for every setting, governed or plain, so that each line pays the
 * same pauses on the same clock (the pauses are not taken off any time); and every full collection
 * the JVM runs anyway. Under the serial collector a full collection compacts the whole heap, so what
 * is left after it is the live set. {@link #sampleNow} takes one more on the calling thread.
 *
 * <p>Thread-safety: {@link #start}, {@link #sampleNow} and {@link #stop} from one thread; the
 * readings from any thread.
 */
final class HeapSampler {

    private final long everyMillis;
    private final AtomicInteger samples = new AtomicInteger();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onCollection;
    private volatile long peakBytes;
    private volatile boolean running;
    private Thread thread;

    /** @param everyMillis the period of the sampler's own full collections; at least 1 */
    HeapSampler(long everyMillis) {
        if (everyMillis < 1) {
            throw new IllegalArgumentException("everyMillis must be at least 1: " + everyMillis);
        }
        this.everyMillis = everyMillis;
    }

    void start() {
        running = true;
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
        thread = new Thread(() -> {
            while (running) {
                try {
                    Thread.sleep(everyMillis);
                } catch (InterruptedException e) {
                    return;
                }
                System.gc();
            }
        }, "lag-heap-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * One full collection now, and its reading: the collector's notification comes on another
     * thread, so this waits for it (at most a second).
     *
     * @throws InterruptedException when the calling thread is interrupted while it waits
     */
    void sampleNow() throws InterruptedException {
        int before = samples.get();
        System.gc();
        for (int i = 0; i < 100 && samples.get() == before; i++) {
            Thread.sleep(10);
        }
    }

    /** Stops the sampling; idempotent. */
    void stop() throws InterruptedException {
        if (thread != null && running) {
            running = false;
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

    /** The largest live heap seen after a full collection, in bytes; 0 before the first. */
    long peakBytes() {
        return peakBytes;
    }

    /** Full collections read. */
    int samples() {
        return samples.get();
    }

    private void onCollection(Notification n, Object handback) {
        if (!running || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (!info.getGcAction().contains("major")) {
            return;
        }
        long live = 0;
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (HEAP_POOLS.contains(pool.getKey())) {
                live += pool.getValue().getUsed();
            }
        }
        synchronized (this) {
            peakBytes = Math.max(peakBytes, live);
        }
        samples.incrementAndGet();
    }

    /** Names of the heap pools (the collectors' notifications also report non-heap ones). */
    private static final Set<String> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toUnmodifiableSet());
}
