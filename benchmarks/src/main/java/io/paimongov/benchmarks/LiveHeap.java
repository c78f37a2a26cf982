package io.paimongov.benchmarks;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * What survived the last full collection in every heap pool ({@link
 * MemoryPoolMXBean#getCollectionUsage()}): the live set, which an {@code -Xmx} limit is about.
 * Allocation counters and heap used without a collection count garbage; this does not. Either the
 * caller runs the collection ({@code System.gc()}) and decides how long to let cleaners settle
 * first ({@link #afterLastCollection}), or {@link #settled} does both until the reading is stable.
 *
 * <p>Only a JVM started with {@link ChildJvm#MEASURING_COLLECTOR} is read ({@link
 * #requireMeasuringCollector}): other collectors may leave dead objects in place after a full
 * collection.
 *
 * <p>Stateless; thread-safe. Nothing else should run in the JVM meanwhile: its live objects count.
 */
public final class LiveHeap {

    private LiveHeap() {}

    /** Full collections {@link #settled} runs at most. */
    static final int MAX_COLLECTIONS = 10;
    /** What {@link #settled} gives finalizers and cleaners between two collections. */
    static final long SETTLE_MILLIS = 200;

    /**
     * Live heap now: what survived a full collection in every heap pool, read until two reads in a
     * row agree (at most {@value #MAX_COLLECTIONS}). Before each read the collector runs, then
     * finalizers and cleaners get {@value #SETTLE_MILLIS} ms to run, then it runs again: the format
     * writers' streams and codecs are freed through cleaners, so right after closing files one
     * collection finds megabytes that are garbage but not yet freed (measured: a first read 2.3
     * times the settled one after flushing 64 Parquet writers).
     *
     * @throws InterruptedException when the calling thread is interrupted while it waits
     */
    public static long settled() throws InterruptedException {
        requireMeasuringCollector();
        long last = -1;
        for (int i = 0; i < MAX_COLLECTIONS; i++) {
            System.gc();
            System.runFinalization();
            Thread.sleep(SETTLE_MILLIS);
            System.gc();
            long sum = afterLastCollection();
            if (sum == last) {
                break;
            }
            last = sum;
        }
        return last;
    }

    /**
     * Refuses a JVM whose full collections may leave dead objects counted as used: the readings of
     * this class and of {@link LiveHeapSampler} are the live set only under {@link
     * ChildJvm#MEASURING_COLLECTOR}.
     *
     * @throws IllegalStateException naming the flags this JVM runs with, when they are not those
     */
    public static void requireMeasuringCollector() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        String serial = vm.getVMOption("UseSerialGC").getValue();
        String deadRatio = vm.getVMOption("MarkSweepDeadRatio").getValue();
        if (!"true".equals(serial) || !"0".equals(deadRatio)) {
            throw new IllegalStateException("a live-heap reading needs a JVM started with " + String.join(" ", ChildJvm.MEASURING_COLLECTOR)
                    + " (ChildJvm.MEASURING_COLLECTOR); this one runs with UseSerialGC=" + serial + ", MarkSweepDeadRatio=" + deadRatio);
        }
    }

    /** Bytes the heap pools held right after their last collection. */
    public static long afterLastCollection() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage after = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
            if (after != null) {
                sum += after.getUsed();
            }
        }
        return sum;
    }
}
