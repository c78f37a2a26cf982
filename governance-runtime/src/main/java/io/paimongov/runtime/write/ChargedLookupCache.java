package io.paimongov.runtime.write;

import io.paimongov.runtime.memory.MemoryReservation;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.io.cache.CacheCallback;
import org.apache.paimon.io.cache.CacheKey;
import org.apache.paimon.io.cache.CacheManager;
import org.apache.paimon.io.cache.CacheReader;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.options.MemorySize;

/**
 * One bucket's lookup page cache in a write whose compaction looks keys up (deletion vectors, the
 * lookup changelog producer, first-row, {@code force-lookup}), charged page by page as it fills.
 *
 * <p>Paimon makes one page cache per write ({@code lookup.cache-max-memory-size}) and shares it by
 * all buckets, on the assumption that one thread uses it: an evicted or invalidated page tells its
 * reader through a callback that changes the reader's plain maps and fields, on whichever thread
 * caused the eviction. With compactions of several buckets at once that thread is another
 * bucket's, and a lookup failed mid-read (a bloom filter page set to null under it) or a reader's
 * map was changed while its owner used it. So each bucket gets its own cache ({@link
 * BucketLookupCaches}), used only by the thread that compacts or closes that bucket, and the
 * caches of one write share one {@link Bound}: Paimon's {@code lookup.cache-max-memory-size} (split
 * by {@code lookup.cache.high-priority-pool-ratio} between index and data pages, as Paimon does)
 * and the write's {@code lookup cache} reservation in the budget.
 *
 * <p>A page is charged to the bound before the cache keeps it and given back when its reader
 * invalidates it (the lookup file is closed or dropped). A page that does not fit (the bound is at
 * Paimon's size or the budget is full) is read and handed to the caller uncached: the lookup goes
 * on at the cost of reading the page again next time, and the heap holds it only while the caller
 * uses it. Nothing is evicted to make room, so no callback ever runs for a page another bucket
 * holds; unlike Paimon's LRU cache, pages of live lookup files stay cached until their file is
 * dropped (for uniformly spread keys the hit rate is the same).
 *
 * <p><b>Thread-safety:</b> thread-safe as Paimon's cache is; meant to be used by one thread at a
 * time (the bucket's compaction, or the writing thread between compactions). The bound is shared
 * and thread-safe.
 */
final class ChargedLookupCache extends CacheManager {

    /** Far above any bound: the underlying cache never evicts by weight (its maximum plus one must not overflow). */
    private static final MemorySize NEVER_FULL = MemorySize.ofBytes(Long.MAX_VALUE / 4);

    private final Bound bound;

    ChargedLookupCache(Bound bound) {
        super(NEVER_FULL, 0);
        this.bound = bound;
    }

    /**
     * What the page caches of one write hold together: at most Paimon's size per kind of page, and
     * only what the write's reservation could be grown by. Thread-safe.
     */
    static final class Bound {
        private final MemoryReservation charge;
        private final long dataMax;
        private final long indexMax;
        private final boolean split;
        private final AtomicLong data = new AtomicLong();
        private final AtomicLong index = new AtomicLong();

        /**
         * @param maxBytes Paimon's {@code lookup.cache-max-memory-size}
         * @param highPriorityPoolRatio Paimon's {@code lookup.cache.high-priority-pool-ratio}: the
         *     share of index pages; 0 for one pool for both
         * @param charge the write's {@code lookup cache} reservation
         */
        Bound(MemorySize maxBytes, double highPriorityPoolRatio, MemoryReservation charge) {
            if (highPriorityPoolRatio < 0 || highPriorityPoolRatio >= 1) {
                throw new IllegalArgumentException("lookup.cache.high-priority-pool-ratio must be in [0, 1): " + highPriorityPoolRatio);
            }
            this.charge = charge;
            this.split = highPriorityPoolRatio > 0;
            this.indexMax = (long) (maxBytes.getBytes() * highPriorityPoolRatio);
            this.dataMax = split ? (long) (maxBytes.getBytes() * (1 - highPriorityPoolRatio)) : maxBytes.getBytes();
        }

        /** Bytes of pages the caches keep now. */
        long bytes() {
            return data.get() + index.get();
        }

        /** Takes room for a page of {@code bytes}: within the pool's size and charged; false, changing nothing, when it does not fit. */
        boolean tryTake(boolean isIndex, long bytes) {
            AtomicLong pool = pool(isIndex);
            long max = split && isIndex ? indexMax : dataMax;
            for (long held = pool.get(); ; held = pool.get()) {
                if (held + bytes > max) {
                    return false;
                }
                if (pool.compareAndSet(held, held + bytes)) {
                    break;
                }
            }
            if (!charge.tryGrow(bytes)) {
                pool.addAndGet(-bytes);
                return false;
            }
            return true;
        }

        /** Gives a kept page's room back; the charge only while the write has not closed its reservation. */
        void give(boolean isIndex, long bytes) {
            pool(isIndex).addAndGet(-bytes);
            if (charge.isClosed()) {
                return;
            }
            try {
                charge.shrink(bytes);
            } catch (IllegalArgumentException e) {
                if (!charge.isClosed()) {
                    throw e;
                }
            }
        }

        private AtomicLong pool(boolean isIndex) {
            return split && isIndex ? index : data;
        }
    }

    @Override
    public MemorySegment getPage(CacheKey key, CacheReader reader, CacheCallback callback) {
        Load load = new Load(reader, key.isIndex());
        try {
            return super.getPage(key, load, k -> {
                if (load.kept > 0) {
                    bound.give(key.isIndex(), load.kept);
                }
                callback.onRemoval(k);
            });
        } catch (RuntimeException e) {
            if (load.uncharged != null) {
                // Read, but no room to keep it: the caller gets the page uncached.
                return MemorySegment.wrap(load.uncharged);
            }
            throw e;
        }
    }

    /** One load through the cache: the page takes room in the bound before the cache keeps it. */
    private final class Load implements CacheReader {
        private final CacheReader reader;
        private final boolean isIndex;
        /** Bytes this load put in the cache; read by the removal callback. */
        private volatile long kept;
        /** A page read that did not fit. */
        private byte[] uncharged;

        Load(CacheReader reader, boolean isIndex) {
            this.reader = reader;
            this.isIndex = isIndex;
        }

        @Override
        public byte[] read(CacheKey key) throws IOException {
            byte[] page = reader.read(key);
            if (!bound.tryTake(isIndex, page.length)) {
                uncharged = page;
                throw new NotCharged();
            }
            kept = page.length;
            return page;
        }
    }

    /** Aborts a load whose page did not fit; caught in {@link #getPage}. */
    private static final class NotCharged extends RuntimeException {
        NotCharged() {
            super("lookup cache page not kept", null, false, false);
        }
    }
}
