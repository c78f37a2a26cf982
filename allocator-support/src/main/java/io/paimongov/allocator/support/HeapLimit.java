package io.paimongov.allocator.support;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * The heap a write's budget must fit in: the JVM's maximum heap ({@code -Xmx}, {@link
 * Runtime#maxMemory()}) less what the collector keeps free (G1's {@code G1ReservePercent}) and less
 * what is live beside the write when it opens: the JVM's own classes and caches, the engine's and
 * the application's data. A budget above it can never be honoured: the pages would run the JVM out
 * of heap before the budget ran out (SPI clause PROV.7). Measured, without pausing the JVM where it
 * can be told cheaply:
 *
 * <ol>
 *   <li>what was live after the last collection: a budget that does not fit beside it is refused;
 *   <li>what the heap holds now, garbage included (an upper bound of the live heap): a budget that
 *       fits beside it is accepted;
 *   <li>in between, the last collection is too old to tell (the live heap may have grown since:
 *       a demo's model, an application's cache), so one collection is asked for ({@code
 *       System.gc()}) and what is live after it decides. Where that collects nothing (an explicit
 *       collection disabled), the heap's use now stands for the live heap.
 * </ol>
 *
 * <p>Measured here (two cores, G1): a demo of 512 writers with a 72 MiB budget in a 96 MiB heap was
 * accepted against a collection from before the demo built its model, and ran out of heap 554,371
 * rows in; in a 256 MiB heap the same run's heap after its young collections reaches 107 MB (the
 * budget, 75 MB at its peak, beside what the JVM held). Measured when the write opens, 32.9 MB are
 * live and G1 keeps 10.1 MB free, so at most 57.7 MB are free: 72 MiB is refused, and 55 MiB runs to
 * the end.
 *
 * <p>For a provider whose pages are {@code byte[]} on the Java heap (the heap and the native
 * providers): call {@link #check} in {@code open}, before anything is taken.
 *
 * <p>Stateless; thread-safe.
 */
public final class HeapLimit {

    static final String BUDGET_KEY = "governance.memory.budget";

    private HeapLimit() {}

    /** The live heap beside the write, and how it was measured. */
    private record Live(long bytes, String when) {}

    /**
     * @throws IllegalArgumentException when {@code budgetBytes} is larger than the heap can give,
     *     naming the key, the budget, the maximum heap, the live heap and the collector's reserve
     */
    public static void check(long budgetBytes) {
        long max = Runtime.getRuntime().maxMemory();
        if (max == Long.MAX_VALUE) {
            return;
        }
        long reserve = max / 100 * g1ReservePercent();
        Live live = new Live(liveAfterLastCollection(), "after the last collection");
        if (budgetBytes <= max - reserve - usedNow()) {
            return;
        }
        if (budgetBytes <= max - reserve - live.bytes()) {
            live = measureNow();
        }
        long room = Math.max(0, max - reserve - live.bytes());
        if (budgetBytes > room) {
            throw new IllegalArgumentException("'" + BUDGET_KEY + "' = " + budgetBytes + " bytes is larger than the heap can give:"
                    + " the JVM's maximum heap is " + max + " bytes (-Xmx), " + live.bytes() + " of them live " + live.when()
                    + (reserve > 0 ? " and " + reserve + " kept free by the collector (G1ReservePercent)" : "")
                    + ", so at most " + room + " bytes are free beside what the JVM holds; lower '" + BUDGET_KEY
                    + "' or raise -Xmx");
        }
    }

    /** The live heap after a collection asked for now; the heap's use now when none ran. */
    private static Live measureNow() {
        long collections = collections();
        System.gc();
        if (collections() == collections) {
            return new Live(usedNow(), "now (garbage included: no collection ran when one was asked for)");
        }
        return new Live(liveAfterLastCollection(), "when the write opened (after a collection)");
    }

    static long liveAfterLastCollection() {
        long live = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage after = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
            if (after != null) {
                live += after.getUsed();
            }
        }
        return live;
    }

    private static long usedNow() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long collections() {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        return count;
    }

    /** G1's reserve of free heap, in percent; 0 under another collector or where the JVM does not say. */
    private static long g1ReservePercent() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (hotspot == null || !Boolean.parseBoolean(hotspot.getVMOption("UseG1GC").getValue())) {
                return 0;
            }
            return Long.parseLong(hotspot.getVMOption("G1ReservePercent").getValue());
        } catch (RuntimeException notHotSpot) {
            return 0;
        }
    }
}
