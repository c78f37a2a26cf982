package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.index.HashIndexFile;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.manifest.IndexManifestEntry;

/**
 * Charges the key hashes Paimon's dynamic-bucket writers keep when the buckets were assigned before
 * the rows reached the write ({@link GovernedAssigner}): each writer's {@code
 * DynamicBucketIndexMaintainer} holds every key hash of its bucket on the heap, outside pages: all
 * of the bucket's index file, read when the writer opens, and each new key it is given. The
 * reservation {@value #CONSUMER} covers
 *
 * <ul>
 *   <li>the hashes the writers held at the last count ({@link PaimonWriters#maintainedHashes}),
 *   <li>for each bucket a row was sent to that had no writer then, the keys of its index file (the
 *       count the table's index manifest declares), charged before that row goes to the write, so
 *       before the writer opens and reads them,
 *   <li>and {@value #AHEAD} keys for the rows since: the hashes are counted again every {@value
 *       #AHEAD} rows and after every prepareCommit, so no row adds a hash that is not paid for.
 * </ul>
 *
 * A charge that needs more grows the reservation (after making room), a count that needs less gives
 * back. Charged at the measured cost per key of the hash index ({@code hash-index} in the footprint
 * table, both Paimon structures together, so an upper estimate for this one). A write that
 * overwrites restores no index: its writers start empty.
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call.
 */
final class MaintainedHashes {

    static final String CONSUMER = "hash index (dynamic-bucket writers)";
    static final int AHEAD = 4096;

    private final MemoryBudget budget;
    private final MemoryReservation reservation;
    private final long bytesPerKey;
    private final Supplier<PaimonWriters.HeldHashes> writers;
    /** The table's hash index; null when overwriting (writers restore nothing). */
    private final IndexFileHandler index;
    /** Per partition, the keys of each bucket's index file; read once per partition between prepareCommits. */
    private final Map<BinaryRow, Map<Integer, Long>> indexKeys = new HashMap<>();
    /** Buckets with a writer at the last count, or sent a row since: a bucket outside it is new. */
    private final Map<BinaryRow, Set<Integer>> known = new HashMap<>();
    /** Buckets sent a row since the last count that had no writer then, with their index files' keys. */
    private final Map<BinaryRow, Map<Integer, Long>> opening = new HashMap<>();
    private long counted;
    private long openingKeys;
    private long rowsSinceCount = AHEAD;

    /**
     * @param writers counts the hashes the write's writers hold now
     * @param index the table's hash index, null when the write overwrites
     */
    MaintainedHashes(MemoryBudget budget, long bytesPerKey, Supplier<PaimonWriters.HeldHashes> writers, IndexFileHandler index) {
        this.budget = budget;
        this.bytesPerKey = bytesPerKey;
        this.writers = writers;
        this.index = index;
        this.reservation = budget.newReservation(ConsumerKind.INDEX, CONSUMER);
    }

    /**
     * Before one more row goes to the writer of ({@code partition}, {@code bucket}).
     *
     * @throws ResourceExhaustedException when the hashes cannot be charged even after making room
     */
    void beforeRow(BinaryRow partition, int bucket) {
        Set<Integer> buckets = known.get(partition);
        boolean fresh = buckets == null || !buckets.contains(bucket);
        if (fresh) {
            BinaryRow key = partition.copy();
            long keys = indexKeys(key, bucket);
            known.computeIfAbsent(key, p -> new HashSet<>()).add(bucket);
            opening.computeIfAbsent(key, p -> new HashMap<>()).put(bucket, keys);
            openingKeys += keys;
        }
        if (++rowsSinceCount > AHEAD) {
            recount();
        } else if (fresh && reservation.bytes() < wanted()) {
            grow(wanted() - reservation.bytes());
        }
    }

    /**
     * Counts the hashes now and charges exactly what {@link MaintainedHashes} covers; every {@value
     * #AHEAD} rows. A bucket sent a row whose writer is still to open (its rows wait in the shared
     * sort) stays charged by its index file's keys.
     */
    void recount() {
        PaimonWriters.HeldHashes held = writers.get();
        counted = held.hashes();
        known.clear();
        held.buckets().forEach((partition, buckets) -> known.put(partition, new HashSet<>(buckets)));
        openingKeys = 0;
        var partitions = opening.entrySet().iterator();
        while (partitions.hasNext()) {
            var partition = partitions.next();
            Set<Integer> open = held.buckets().getOrDefault(partition.getKey(), Set.of());
            partition.getValue().keySet().removeAll(open);
            if (partition.getValue().isEmpty()) {
                partitions.remove();
                continue;
            }
            for (var bucket : partition.getValue().entrySet()) {
                openingKeys += bucket.getValue();
                known.computeIfAbsent(partition.getKey(), p -> new HashSet<>()).add(bucket.getKey());
            }
        }
        long wanted = wanted();
        long have = reservation.bytes();
        if (wanted < have) {
            reservation.shrink(have - wanted);
        } else if (wanted > have) {
            grow(wanted - have);
        }
        rowsSinceCount = 0;
    }

    /** After a prepareCommit: counts again (Paimon closes idle writers) and reads the index anew at the next new bucket. */
    void afterPrepare() {
        indexKeys.clear();
        recount();
    }

    /** Key hashes charged for now, ahead included. */
    long chargedBytes() {
        return reservation.bytes();
    }

    private long wanted() {
        return (counted + openingKeys + AHEAD) * bytesPerKey;
    }

    private void grow(long bytes) {
        if (!reservation.tryGrow(bytes)) {
            budget.reclaim(bytes);
            if (!reservation.tryGrow(bytes)) {
                throw budget.exhausted(CONSUMER + " holding " + counted + " keys and opening buckets of " + openingKeys
                        + " more, at " + bytesPerKey + " bytes per key", bytes);
            }
        }
    }

    /** The keys {@code bucket}'s index file holds: what its writer reads when it opens. */
    private long indexKeys(BinaryRow partition, int bucket) {
        if (index == null) {
            return 0;
        }
        return indexKeys.computeIfAbsent(partition, p -> {
            Map<Integer, Long> byBucket = new HashMap<>();
            for (IndexManifestEntry entry : index.scanEntries(HashIndexFile.HASH_INDEX, p)) {
                byBucket.merge(entry.bucket(), entry.indexFile().rowCount(), Long::sum);
            }
            return byBucket;
        }).getOrDefault(bucket, 0L);
    }
}
