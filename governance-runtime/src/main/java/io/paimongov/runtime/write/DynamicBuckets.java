package io.paimongov.runtime.write;

import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.HashIndexFile;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.index.PartitionIndex;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;

/**
 * Picks the bucket of each row of a dynamic-bucket primary-key table ({@code bucket = -1}), as
 * Paimon's own single-writer assignment does ({@code HashBucketAssigner} with one assigner, which
 * Paimon's Flink and Spark sinks run before their writers): per partition a {@link PartitionIndex}
 * loaded from the table's hash index, the key hash ({@code trimmedPrimaryKey().hashCode()}, the
 * hash Paimon's writers put in the index) mapped to a bucket, new keys going to a bucket with fewer
 * than {@code dynamic-bucket.target-row-num} keys, up to {@code dynamic-bucket.max-buckets}.
 *
 * <p>Memory. The index holds every key hash of a partition the write touched, and each bucket
 * writer Paimon opens keeps the hashes of its bucket again ({@code DynamicBucketIndexMaintainer}).
 * Both grow with the keys, outside pages, so the reservation {@value #CONSUMER} grows with them at
 * a measured cost per key ({@code hash-index} in the footprint table: both structures together, at
 * the worst point of their doubling). It grows ahead of the keys, in steps of an eighth of what it
 * holds (at least {@value #MIN_STEP_KEYS} keys), before a key is added, and before an existing index
 * is loaded by the key count its files declare. When it cannot grow, the budget's reclaimer makes
 * room (cached pages back, writers flush) and, failing that, the write fails with {@link
 * ResourceExhaustedException} naming the key count; the heap never takes keys the budget did not
 * grant.
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call.
 */
final class DynamicBuckets {

    static final String CONSUMER = "hash index (dynamic buckets)";
    /** The footprint table's row: kind {@code pk}, format {@value}, stage {@value #STAGE}, bytesPerWriter = bytes per key. */
    static final String FORMAT = "any";
    static final String STAGE = "hash-index";
    static final int MIN_STEP_KEYS = 4096;

    private final MemoryBudget budget;
    private final MemoryReservation reservation;
    private final long bytesPerKey;
    private final RowKeyExtractor extractor;
    private final IndexFileHandler indexFiles;
    private final long targetRowsPerBucket;
    private final int maxBuckets;
    private final Map<BinaryRow, PartitionIndex> partitions = new HashMap<>();
    private long keys;
    private long chargedKeys;
    private int maxBucketId;

    DynamicBuckets(FileStoreTable table, MemoryBudget budget, long bytesPerKey) {
        CoreOptions options = table.coreOptions();
        this.budget = budget;
        this.bytesPerKey = bytesPerKey;
        this.extractor = table.createRowKeyExtractor();
        this.indexFiles = table.store().newIndexFileHandler();
        this.targetRowsPerBucket = options.dynamicBucketTargetRowNum();
        Integer max = options.dynamicBucketMaxBuckets();
        this.maxBuckets = max == null ? -1 : max;
        this.reservation = budget.newReservation(CONSUMER);
    }

    /**
     * The bucket of {@code row}, whose partition is {@code partition}.
     *
     * @throws ResourceExhaustedException when the index cannot be charged for one more key (or for
     *     the partition's existing index) even after making room
     */
    int bucket(InternalRow row, BinaryRow partition) {
        extractor.setRecord(row);
        int hash = extractor.trimmedPrimaryKey().hashCode();
        PartitionIndex index = partitions.get(partition);
        if (index == null) {
            index = load(partition.copy());
        }
        chargeFor(keys + 1);
        int before = index.hash2Bucket.size();
        int bucket = index.assign(hash, b -> true, maxBuckets, maxBucketId);
        keys += index.hash2Bucket.size() - before;
        maxBucketId = Math.max(maxBucketId, bucket);
        return bucket;
    }

    /** Key hashes the index holds now (exact). */
    long keys() {
        return keys;
    }

    /** Bytes reserved for the index now. */
    long reservedBytes() {
        return reservation.bytes();
    }

    /** Gives the reservation back (the write's release; the index is dropped with the write). */
    void close() {
        partitions.clear();
        reservation.close();
    }

    private PartitionIndex load(BinaryRow partition) {
        long existing = 0;
        for (IndexManifestEntry entry : indexFiles.scanEntries(HashIndexFile.HASH_INDEX, partition)) {
            existing += entry.indexFile().rowCount();
        }
        chargeFor(keys + existing);
        PartitionIndex index = PartitionIndex.loadIndex(indexFiles, partition, targetRowsPerBucket, h -> true, b -> true);
        partitions.put(partition, index);
        keys += index.hash2Bucket.size();
        return index;
    }

    /** Makes the reservation cover {@code needed} keys, a step ahead. */
    private void chargeFor(long needed) {
        if (needed <= chargedKeys) {
            return;
        }
        long step = Math.max(needed - chargedKeys, Math.max(MIN_STEP_KEYS, chargedKeys / 8));
        if (reservation.tryGrow(step * bytesPerKey)) {
            chargedKeys += step;
            return;
        }
        long exact = (needed - chargedKeys) * bytesPerKey;
        budget.reclaim(exact);
        if (!reservation.tryGrow(exact)) {
            throw budget.exhausted(CONSUMER + " holding " + keys + " keys at " + bytesPerKey
                    + " bytes per key, for " + (needed - keys) + " more", exact);
        }
        chargedKeys = needed;
    }
}
