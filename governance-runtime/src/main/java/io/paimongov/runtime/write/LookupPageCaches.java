package io.paimongov.runtime.write;

import org.apache.paimon.io.cache.CacheManager;
import org.apache.paimon.options.MemorySize;

/**
 * Paimon lookup page caches charged to a reservation page by page, for lookups that run outside a
 * write (a governed read's lookups, {@code io.paimongov.runtime.read.GovernedLookup}); a write's own
 * are made by {@link BucketLookupCaches}. See {@link ChargedLookupCache} for how such a cache keeps
 * within Paimon's size and the budget, evicting its least recently used pages first.
 *
 * <p>Stateless; thread-safe.
 */
public final class LookupPageCaches {

    private LookupPageCaches() {}

    /**
     * A page cache of at most {@code maxBytes} (split between index and data pages by {@code
     * highPriorityPoolRatio}, as Paimon splits its own), every page charged to {@code charge}
     * while kept.
     *
     * @throws IllegalArgumentException when the ratio is not in [0, 1)
     */
    public static CacheManager charged(MemorySize maxBytes, double highPriorityPoolRatio, EngineReservation charge) {
        return new ChargedLookupCache(new ChargedLookupCache.Bound(maxBytes, highPriorityPoolRatio, charge.internal()));
    }
}
