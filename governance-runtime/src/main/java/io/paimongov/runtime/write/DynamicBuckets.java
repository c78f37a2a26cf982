package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.index.PartitionIndex;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.utils.Int2ShortHashMap;

/**
 * Picks the bucket of each row of a dynamic-bucket primary-key table ({@code bucket = -1}), as
 * Paimon's own assignment does ({@code HashBucketAssigner}, which Paimon's Flink and Spark sinks
 * run before their writers): the row's assigner is {@code BucketAssigner.computeAssigner(partition
 * hash, key hash, channels, assigners)} of the write's {@link WriteChannels}; per (partition,
 * assigner) a {@link PartitionIndex} loaded from the table's hash index with the keys and buckets
 * that assigner owns ({@link WriteChannels#ownsBucket}); the key hash ({@code
 * trimmedPrimaryKey().hashCode()}, the hash Paimon's writers put in the index) mapped to a bucket,
 * new keys going to one of the assigner's buckets with fewer than {@code
 * dynamic-bucket.target-row-num} keys, up to {@code dynamic-bucket.max-buckets}. A write that
 * overwrites (INSERT OVERWRITE) starts from empty indexes, as Paimon's {@code
 * SimpleHashBucketAssigner} does: what it replaces does not count.
 *
 * <p>Memory. The index holds every key hash of a partition the write touched, and each bucket
 * writer Paimon opens keeps the hashes of its bucket again ({@code DynamicBucketIndexMaintainer}).
 * Both grow with the keys, outside pages, so the reservation {@value #CONSUMER} grows with them at
 * a measured cost per key ({@code hash-index} in the footprint table: both structures together, at
 * the worst point of their doubling). It grows ahead of the keys, in steps of an eighth of what it
 * holds (at least {@value #MIN_STEP_KEYS} keys), before a key is added, and while an existing index
 * is loaded before each key the assigner keeps of it (an assigner keeps its own keys only). When it cannot grow, the budget's reclaimer makes
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
    private final org.apache.paimon.utils.SnapshotManager snapshots;
    private final long targetRowsPerBucket;
    private final int maxBuckets;
    private final WriteChannels layout;
    private final int channels;
    private final int assigners;
    private final boolean overwrite;
    /** Per assigner, its indexes by partition. */
    private final Map<Integer, Map<BinaryRow, PartitionIndex>> indexes = new HashMap<>();
    /** Per assigner, the highest bucket it created, as {@code HashBucketAssigner} keeps one. */
    private final Map<Integer, Integer> maxBucketIds = new HashMap<>();
    private long keys;
    private long chargedKeys;

    DynamicBuckets(FileStoreTable table, MemoryBudget budget, long bytesPerKey, WriteChannels channels, boolean overwrite) {
        CoreOptions options = table.coreOptions();
        this.budget = budget;
        this.bytesPerKey = bytesPerKey;
        this.layout = channels;
        this.channels = channels.count();
        this.assigners = channels.assigners();
        this.overwrite = overwrite;
        this.extractor = table.createRowKeyExtractor();
        this.indexFiles = table.store().newIndexFileHandler();
        this.snapshots = table.snapshotManager();
        this.targetRowsPerBucket = options.dynamicBucketTargetRowNum();
        Integer max = options.dynamicBucketMaxBuckets();
        this.maxBuckets = max == null ? -1 : max;
        this.reservation = budget.newReservation(ConsumerKind.INDEX, CONSUMER);
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
        int partitionHash = partition.hashCode();
        int assigner = BucketAssigner.computeAssigner(partitionHash, hash, channels, assigners);
        Map<BinaryRow, PartitionIndex> ofAssigner = indexes.computeIfAbsent(assigner, a -> new HashMap<>());
        PartitionIndex index = ofAssigner.get(partition);
        if (index == null) {
            BinaryRow key = partition.copy();
            index = load(key, partitionHash, assigner);
            ofAssigner.put(key, index);
        }
        chargeFor(keys + 1);
        int before = index.hash2Bucket.size();
        int maxBucketId = maxBucketIds.getOrDefault(assigner, 0);
        int bucket = index.assign(hash, b -> layout.ownsBucket(assigner, partitionHash, b), maxBuckets, maxBucketId);
        keys += index.hash2Bucket.size() - before;
        maxBucketIds.put(assigner, Math.max(maxBucketId, bucket));
        return bucket;
    }

    /**
     * At a stream write's commit {@code identifier}: drops the indexes of partitions no row touched
     * since the last commit once that commit's snapshot is in (Paimon's {@code
     * HashBucketAssigner.prepareCommit}), and gives back their keys' charge, so a stream that moves
     * on to new partitions does not keep the old ones' keys.
     */
    void prepareCommit(long identifier, String commitUser) {
        long latestCommitted = Long.MIN_VALUE;
        boolean anyCommitted = indexes.values().stream()
                .flatMap(m -> m.values().stream())
                .anyMatch(i -> i.lastAccessedCommitIdentifier != Long.MIN_VALUE);
        if (anyCommitted) {
            latestCommitted = snapshots.latestSnapshotOfUserFromFilesystem(commitUser)
                    .map(org.apache.paimon.Snapshot::commitIdentifier)
                    .orElse(Long.MIN_VALUE);
        }
        long dropped = 0;
        for (Map<BinaryRow, PartitionIndex> ofAssigner : indexes.values()) {
            var it = ofAssigner.values().iterator();
            while (it.hasNext()) {
                PartitionIndex index = it.next();
                if (index.accessed) {
                    index.lastAccessedCommitIdentifier = identifier;
                } else if (index.lastAccessedCommitIdentifier <= latestCommitted) {
                    dropped += index.hash2Bucket.size();
                    it.remove();
                }
                index.accessed = false;
            }
        }
        if (dropped > 0) {
            keys -= dropped;
            long free = chargedKeys - keys;
            reservation.shrink(free * bytesPerKey);
            chargedKeys = keys;
        }
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
        indexes.clear();
        reservation.close();
    }

    /**
     * The index of {@code assigner} for {@code partition}: the keys it owns from the table's hash
     * index, each charged (in the reservation's steps) before Paimon's loader keeps it, so an
     * assigner of many pays for its own part of a partition, not for the whole; empty when
     * overwriting.
     */
    private PartitionIndex load(BinaryRow partition, int partitionHash, int assigner) {
        if (overwrite) {
            return new PartitionIndex(Int2ShortHashMap.builder().build(), new HashMap<>(), targetRowsPerBucket);
        }
        long[] kept = {0};
        PartitionIndex index = PartitionIndex.loadIndex(indexFiles, partition, targetRowsPerBucket,
                h -> {
                    if (BucketAssigner.computeAssigner(partitionHash, h, channels, assigners) != assigner) {
                        return false;
                    }
                    chargeFor(keys + ++kept[0]);
                    return true;
                },
                b -> layout.ownsBucket(assigner, partitionHash, b));
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
