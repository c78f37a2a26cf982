package io.paimongov.heap;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * The heap a write's budget must fit in: the JVM's maximum heap ({@code -Xmx}, {@link
 * Runtime#maxMemory()}) less what was live after the last collection (the heap pools' collection
 * usage; garbage is not counted, so a busy JVM is not refused for what a collection frees). A
 * budget above it can never be honoured: the pages would run the JVM out of heap before the budget
 * ran out (SPI clause PROV.7).
 *
 * <p>Stateless; thread-safe.
 */
final class HeapLimit {

    static final String BUDGET_KEY = "governance.memory.budget";

    private HeapLimit() {}

    /**
     * @throws IllegalArgumentException when {@code budgetBytes} is larger than the heap can give,
     *     naming the key, the budget, the maximum heap and the live heap
     */
    static void check(long budgetBytes) {
        long max = Runtime.getRuntime().maxMemory();
        if (max == Long.MAX_VALUE) {
            return;
        }
        long live = liveAfterLastCollection();
        long room = Math.max(0, max - live);
        if (budgetBytes > room) {
            throw new IllegalArgumentException("'" + BUDGET_KEY + "' = " + budgetBytes + " bytes is larger than the heap can give:"
                    + " the JVM's maximum heap is " + max + " bytes (-Xmx), " + live + " of them live after the last collection,"
                    + " so at most " + room + " bytes are free; lower '" + BUDGET_KEY + "' or raise -Xmx");
        }
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
}
