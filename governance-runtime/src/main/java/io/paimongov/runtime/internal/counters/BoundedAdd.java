package io.paimongov.runtime.internal.counters;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Adding to a counter that must never pass a bound: the budget's reservations and the spill scope's
 * disk bytes. Stateless; thread-safe.
 */
public final class BoundedAdd {

    private BoundedAdd() {}

    /**
     * Adds {@code delta} to {@code counter} unless the sum would pass {@code bound} or overflow, in
     * one compare-and-set loop, so concurrent adders never pass the bound together.
     *
     * @return the counter after the add, or -1 when it did not fit (the counter unchanged)
     */
    public static long addWithin(AtomicLong counter, long delta, long bound) {
        while (true) {
            long current = counter.get();
            long next = current + delta;
            if (next > bound || next < 0) {
                return -1;
            }
            if (counter.compareAndSet(current, next)) {
                return next;
            }
        }
    }
}
