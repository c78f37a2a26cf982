package io.paimongov.allocator.support;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The all-or-nothing add of a byte counter with a bound, as an engine's memory pool, a budget or a
 * spill limit keeps it: one compare-and-set loop, so concurrent adders never pass the bound
 * together. Stateless; thread-safe; never throws.
 */
public final class BoundedCounters {

    private BoundedCounters() {}

    /**
     * Adds {@code bytes} to {@code counter} if the sum stays at most {@code bound} (and does not
     * overflow); otherwise changes nothing.
     *
     * @return the counter's value after the add, or -1 when it was refused
     */
    public static long tryAdd(AtomicLong counter, long bytes, long bound) {
        while (true) {
            long current = counter.get();
            long next = current + bytes;
            if (next > bound || next < 0) {
                return -1;
            }
            if (counter.compareAndSet(current, next)) {
                return next;
            }
        }
    }
}
