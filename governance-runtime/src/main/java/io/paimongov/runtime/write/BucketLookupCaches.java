package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryReservation;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.compact.CompactManager;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.BucketedDvMaintainer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.cache.CacheManager;
import org.apache.paimon.mergetree.LookupFile;
import org.apache.paimon.mergetree.compact.KvCompactionManagerFactory;
import org.apache.paimon.mergetree.compact.MergeTreeCompactManagerFactory;
import org.apache.paimon.operation.FileStoreWrite;
import org.apache.paimon.operation.KeyValueFileStoreWrite;
import org.apache.paimon.operation.metrics.CompactionMetrics;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.shade.caffeine2.com.github.benmanes.caffeine.cache.Cache;

/**
 * Gives each bucket of a primary-key write its own lookup caches: a page cache ({@link
 * ChargedLookupCache}, all of the write's under one {@link ChargedLookupCache.Bound}) and a cache of
 * local lookup files. Paimon makes one of each per write and shares them by all buckets, built for
 * one compaction thread per write: the file cache closes an evicted or dropped lookup file, and the
 * page cache tells a reader of an evicted page, on the thread that caused it, through plain maps
 * and fields of the reader. With several buckets compacting at once ({@code
 * governance.compaction.task-threads} 2 or more, or -1) that thread was another bucket's, and a
 * deletion-vector compaction failed with a {@code NullPointerException} in a bloom filter whose page
 * was taken away under it (seen in {@code bench lag} with 5,000,000 keys). With a cache per bucket
 * only the thread that compacts the bucket, or the writing thread between its compactions, touches
 * it.
 *
 * <p>It sits in Paimon's write in place of the compaction manager factory ({@link #install}) and,
 * each time Paimon makes a bucket's compaction manager, sets that bucket's new caches where Paimon's
 * factory takes them from, then lets Paimon's factory make it. Paimon makes compaction managers on
 * the writing thread only (when it makes a bucket's writer), so setting the fields there races with
 * nothing.
 *
 * <p><b>Thread-safety:</b> {@link #create} on the writing thread (Paimon's contract); the rest as
 * Paimon's factory.
 */
final class BucketLookupCaches implements KvCompactionManagerFactory {

    private final MergeTreeCompactManagerFactory paimon;
    private final Field pageCacheField;
    private final Field fileCacheField;
    private final ChargedLookupCache.Bound bound;
    private final Duration fileRetention;
    private final MemorySize maxDiskSize;
    /** The file caches made so far, while their bucket's writer holds them; pruned on create. */
    private final List<WeakReference<Cache<String, LookupFile>>> fileCaches = new ArrayList<>();

    private BucketLookupCaches(MergeTreeCompactManagerFactory paimon, Field pageCacheField, Field fileCacheField,
            ChargedLookupCache.Bound bound, CoreOptions options) {
        this.paimon = paimon;
        this.pageCacheField = pageCacheField;
        this.fileCacheField = fileCacheField;
        this.bound = bound;
        this.fileRetention = options.toConfiguration().get(CoreOptions.LOOKUP_CACHE_FILE_RETENTION);
        this.maxDiskSize = options.toConfiguration().get(CoreOptions.LOOKUP_CACHE_MAX_DISK_SIZE);
    }

    /**
     * Puts a factory that gives each bucket its own caches in place of {@code write}'s, before any
     * of its writers exists. The page caches are bounded together by {@code options}'s {@code
     * lookup.cache-max-memory-size} and charged to {@code charge}; each bucket's lookup files are
     * bounded by {@code lookup.cache-max-disk-size} and {@code lookup.cache-file-retention}.
     *
     * @return false, changing nothing, when this Paimon's write does not make its compaction
     *     managers where this class looks (not a primary-key write, or another factory, such as the
     *     one of {@code pk-clustering-override}); the caller must then keep to one compaction thread
     */
    static boolean install(FileStoreWrite<?> write, CoreOptions options, MemoryReservation charge) {
        if (!(write instanceof KeyValueFileStoreWrite)) {
            return false;
        }
        try {
            Field factoryField = KeyValueFileStoreWrite.class.getDeclaredField("compactManagerFactory");
            factoryField.setAccessible(true);
            if (!(factoryField.get(write) instanceof MergeTreeCompactManagerFactory paimon)) {
                return false;
            }
            Field pageCache = MergeTreeCompactManagerFactory.class.getDeclaredField("cacheManager");
            Field fileCache = MergeTreeCompactManagerFactory.class.getDeclaredField("lookupFileCache");
            if (pageCache.getType() != CacheManager.class || fileCache.getType() != Cache.class) {
                return false;
            }
            pageCache.setAccessible(true);
            fileCache.setAccessible(true);
            ChargedLookupCache.Bound bound =
                    new ChargedLookupCache.Bound(options.lookupCacheMaxMemory(), options.lookupCacheHighPrioPoolRatio(), charge);
            factoryField.set(write, new BucketLookupCaches(paimon, pageCache, fileCache, bound, options));
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public CompactManager create(BinaryRow partition, int bucket, ExecutorService compactExecutor, List<DataFileMeta> restoreFiles,
            BucketedDvMaintainer dvMaintainer) {
        Cache<String, LookupFile> files = LookupFile.createCache(fileRetention, maxDiskSize);
        try {
            pageCacheField.set(paimon, new ChargedLookupCache(bound));
            fileCacheField.set(paimon, files);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot set the lookup caches of bucket " + bucket, e);
        }
        fileCaches.removeIf(r -> r.get() == null);
        fileCaches.add(new WeakReference<>(files));
        return paimon.create(partition, bucket, compactExecutor, restoreFiles, dvMaintainer);
    }

    @Override
    public void withIOManager(IOManager ioManager) {
        paimon.withIOManager(ioManager);
    }

    @Override
    public void withCompactionMetrics(CompactionMetrics compactionMetrics) {
        paimon.withCompactionMetrics(compactionMetrics);
    }

    /** Closes the lookup files every bucket still holds, as Paimon's factory does with its one cache. */
    @Override
    public void close() throws IOException {
        for (WeakReference<Cache<String, LookupFile>> r : fileCaches) {
            Cache<String, LookupFile> files = r.get();
            if (files != null) {
                files.invalidateAll();
            }
        }
        fileCaches.clear();
        paimon.close();
    }
}
