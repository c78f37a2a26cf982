package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryReservation;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.AtomicInteger;
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
 * <p>A page is charged to the bound before the cache keeps it and given back when it leaves the
 * cache. When a page does not fit, the cache makes room among its own pages only, least recently
 * used first, on its own thread, so no callback ever runs for a page another bucket holds. A cache
 * may go past Paimon's size while it holds less than its fair share (the size over the caches that
 * hold pages), so a bucket that comes to a full bound still caches its working pages, and the
 * caches above their share shrink towards it as they load: the pages kept stay below twice
 * Paimon's size and within the budget.
 *
 * <p>A page that does not fit (the budget is full and the cache holds nothing of its kind, or the
 * page is larger than the cache's share) is handed to the caller uncached: the lookup goes on at
 * the cost of reading the page again next time. Paimon's readers keep what the cache hands them
 * until its callback says the page left (a lookup file's block map, its bloom filter), so the cache
 * tells the callback of an uncached page at its next use, on the same thread, before it loads
 * another: the heap holds uncached pages only for the lookup that read them, not for the lookup
 * file's life (in {@code bench lag}'s governed children, whose lookup files' bloom filters were
 * larger than the cache's share, they held up to hundreds of MB of such pages outside the budget;
 * the governed write now turns those bloom filters off unless the table sets them, TableMode).
 *
 * <p><b>Thread-safety:</b> thread-safe (its methods hold its monitor); meant to be used by one
 * thread at a time (the bucket's compaction, or the writing thread between compactions), so its
 * readers' callbacks run on that thread. The bound is shared and thread-safe.
 */
final class ChargedLookupCache extends CacheManager {

    /** Far above any bound: the underlying cache never evicts by weight (its maximum plus one must not overflow). */
    private static final MemorySize NEVER_FULL = MemorySize.ofBytes(Long.MAX_VALUE / 4);

    private final Bound bound;
    /** Pages handed out uncached whose readers have not been told yet that they left. Guarded by this. */
    private final ArrayDeque<Uncached> uncached = new ArrayDeque<>();
    /** The pages this cache keeps and their bytes, least recently used first. Guarded by this. */
    private final LinkedHashMap<CacheKey, Long> kept = new LinkedHashMap<>(16, 0.75f, true);
    /** Guarded by this. */
    private long dataBytes;
    /** Guarded by this. */
    private long indexBytes;

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
        /** Caches that hold at least one page. */
        private final AtomicInteger holders = new AtomicInteger();

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

        /**
         * Takes room for a page of {@code bytes} for a cache that holds {@code ownBytes} of the
         * page's kind: within the pool's size, or within the cache's fair share of it (the size over
         * the caches that hold pages, this one counted), and charged; false, changing nothing, when
         * it does not fit.
         */
        boolean tryTake(boolean isIndex, long bytes, long ownBytes, boolean holdsAny) {
            AtomicLong pool = pool(isIndex);
            long max = indexPool(isIndex) ? indexMax : dataMax;
            long fairShare = max / Math.max(1, holders.get() + (holdsAny ? 0 : 1));
            for (long held = pool.get(); ; held = pool.get()) {
                if (held + bytes > max && ownBytes + bytes > fairShare) {
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
            return indexPool(isIndex) ? index : data;
        }

        /** Whether a page of this kind counts against the index pool (with one pool, nothing does). */
        boolean indexPool(boolean isIndex) {
            return split && isIndex;
        }
    }

    @Override
    public synchronized MemorySegment getPage(CacheKey key, CacheReader reader, CacheCallback callback) {
        releaseUncached();
        kept.get(key); // a use: the page becomes the most recently used
        Load load = new Load(reader, key);
        try {
            return super.getPage(key, load, k -> {
                if (load.bytes > 0) {
                    left(key, load.bytes);
                }
                callback.onRemoval(k);
            });
        } catch (RuntimeException e) {
            if (load.uncharged != null) {
                // Read, but no room to keep it: the caller gets the page uncached, until the next use.
                uncached.add(new Uncached(key, callback));
                return MemorySegment.wrap(load.uncharged);
            }
            throw e;
        }
    }

    /** Tells the readers of the pages handed out uncached that they left, so that they drop them. */
    private void releaseUncached() {
        for (Uncached u = uncached.poll(); u != null; u = uncached.poll()) {
            u.callback.onRemoval(u.key);
        }
    }

    private record Uncached(CacheKey key, CacheCallback callback) {}

    /** Makes room for a page of {@code bytes}, dropping this cache's least recently used pages of its kind as needed. */
    private boolean makeRoom(boolean isIndex, long bytes) {
        while (!bound.tryTake(isIndex, bytes, bound.indexPool(isIndex) ? indexBytes : dataBytes, !kept.isEmpty())) {
            CacheKey eldest = eldest(isIndex);
            if (eldest == null) {
                return false;
            }
            super.invalidPage(eldest); // its callback, on this thread, gives its room back (left)
            if (kept.containsKey(eldest)) {
                return false; // the cache has not told its callback yet: no room now
            }
        }
        return true;
    }

    private CacheKey eldest(boolean isIndex) {
        for (CacheKey k : kept.keySet()) {
            if (bound.indexPool(k.isIndex()) == bound.indexPool(isIndex)) {
                return k;
            }
        }
        return null;
    }

    /** A page was kept: counted as this cache's. */
    private void stayed(CacheKey key, long bytes) {
        if (kept.isEmpty()) {
            bound.holders.incrementAndGet();
        }
        kept.put(key, bytes);
        countOwn(key, bytes);
    }

    /** A page left the cache (dropped to make room, or invalidated by its reader): its room goes back to the bound. */
    private synchronized void left(CacheKey key, long bytes) {
        kept.remove(key);
        countOwn(key, -bytes);
        if (kept.isEmpty()) {
            bound.holders.decrementAndGet();
        }
        bound.give(key.isIndex(), bytes);
    }

    private void countOwn(CacheKey key, long delta) {
        if (bound.indexPool(key.isIndex())) {
            indexBytes += delta;
        } else {
            dataBytes += delta;
        }
    }

    /** One load through the cache: the page takes room in the bound before the cache keeps it. */
    private final class Load implements CacheReader {
        private final CacheReader reader;
        private final CacheKey key;
        /** Bytes this load put in the cache; read by the removal callback. */
        private volatile long bytes;
        /** A page read that did not fit. */
        private byte[] uncharged;

        Load(CacheReader reader, CacheKey key) {
            this.reader = reader;
            this.key = key;
        }

        @Override
        public byte[] read(CacheKey k) throws IOException {
            byte[] page = reader.read(k);
            if (!makeRoom(key.isIndex(), page.length)) {
                uncharged = page;
                throw new NotCharged();
            }
            stayed(key, page.length);
            bytes = page.length;
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
