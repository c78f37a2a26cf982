package io.paimongov.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * What survived the last full collection in every heap pool ({@link
 * MemoryPoolMXBean#getCollectionUsage()}): the live set, which an {@code -Xmx} limit is about.
 * Allocation counters and heap used without a collection count garbage; this does not. The caller
 * runs the collection ({@code System.gc()}) and decides how long to let cleaners settle first.
 *
 * <p>Stateless; thread-safe. Nothing else should run in the JVM meanwhile: its live objects count.
 */
public final class LiveHeap {

    private LiveHeap() {}

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
