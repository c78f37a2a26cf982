package io.paimongov.runtime.write;

import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.runtime.memory.GovernedSegmentPool;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowPartitionComputer;

/**
 * Admits (partition, bucket) writers into a write's budget and makes room for them. A new writer
 * holds a reservation of its per-writer estimate for as long as Paimon keeps it, and is admitted
 * only when its first pages (Paimon needs {@value GovernedTableWrite#MIN_WRITER_PAGES}) are in hand:
 * taken from the engine into the pool's first-pages floor ({@link
 * GovernedSegmentPool#holdFirstPages}) before Paimon creates the writer, so the engine cannot refuse
 * them afterwards. To make room, cached pages go back first, then the writers holding most memory
 * flush or spill, largest first, as Paimon's own preemption does. Otherwise the write fails with
 * {@link ResourceExhaustedException}, whose remedy says whether the budget or the engine was short.
 *
 * <p><b>Thread-safety:</b> {@link #admit} and the release methods run on the writing thread inside
 * a write call; {@link #reclaim} runs on any thread but makes Paimon flush only while it holds the
 * write's call lock without waiting for it (the writing thread inside a call, or any thread while
 * the write is idle), since Paimon's writers are not thread-safe.
 */
final class WriterAdmission {

    /** One (partition, bucket) writer; bucket -1 where the table picks buckets itself. */
    private record WriterKey(BinaryRow partition, int bucket) {}

    private final MemoryBudget budget;
    private final GovernedSegmentPool pool;
    private final long perWriterBytes;
    private final RowType partitionType;
    private final MemoryPoolFactory owners;
    private final ReentrantLock callLock;
    private final Map<WriterKey, MemoryReservation> writers = new HashMap<>();

    WriterAdmission(
            MemoryBudget budget,
            GovernedSegmentPool pool,
            long perWriterBytes,
            RowType partitionType,
            MemoryPoolFactory owners,
            ReentrantLock callLock) {
        this.budget = budget;
        this.pool = pool;
        this.perWriterBytes = perWriterBytes;
        this.partitionType = partitionType;
        this.owners = owners;
        this.callLock = callLock;
    }

    /**
     * Admits the writer of ({@code partition}, {@code bucket}) unless it is admitted already.
     *
     * @return whether a new writer was admitted
     * @throws ResourceExhaustedException when its reservation or first pages do not fit even after
     *     making room
     */
    boolean admit(BinaryRow partition, int bucket) throws Exception {
        if (writers.containsKey(new WriterKey(partition, bucket))) {
            return false;
        }
        WriterKey key = new WriterKey(partition.copy(), bucket);
        MemoryReservation reservation = budget.newReservation(name(key));
        try {
            reservation.grow(perWriterBytes);
            int first = GovernedTableWrite.MIN_WRITER_PAGES;
            if (!pool.holdFirstPages(first)) {
                long firstBytes = (long) first * pool.pageSize();
                reclaim(firstBytes);
                if (!pool.holdFirstPages(first)) {
                    throw budget.exhausted(name(key) + " first pages", firstBytes);
                }
            }
        } catch (Exception e) {
            reservation.close();
            throw e;
        }
        writers.put(key, reservation);
        return true;
    }

    /** Writers admitted and not released. */
    int size() {
        return writers.size();
    }

    private String name(WriterKey key) {
        String partition = InternalRowPartitionComputer.partToSimpleString(partitionType, key.partition(), "/", 100);
        return "writer[partition=" + partition + ", bucket=" + key.bucket() + "]";
    }

    /**
     * Makes room: cached pages first, then, when the write's call lock can be had at once, Paimon
     * flushes or spills the writers holding most memory, largest first.
     *
     * @return the bytes freed
     */
    long reclaim(long needed) throws Exception {
        long freed = pool.releaseCached();
        if (freed >= needed || !callLock.tryLock()) {
            return freed;
        }
        try {
            return freed + flushLargest(needed - freed);
        } finally {
            callLock.unlock();
        }
    }

    private long flushLargest(long needed) throws Exception {
        long freed = 0;
        while (freed < needed) {
            MemoryOwner largest = null;
            for (MemoryOwner owner : owners.memoryOwners()) {
                if (owner != null && owner.memoryOccupancy() > 0
                        && (largest == null || owner.memoryOccupancy() > largest.memoryOccupancy())) {
                    largest = owner;
                }
            }
            if (largest == null) {
                break;
            }
            long before = largest.memoryOccupancy();
            largest.flushMemory();
            freed += pool.releaseCached();
            if (largest.memoryOccupancy() >= before) {
                break;
            }
        }
        return freed;
    }

    /** Releases the writers Paimon no longer keeps: those not in {@code active} (partition to buckets). */
    void releaseClosed(Map<BinaryRow, List<Integer>> active) {
        writers.entrySet()
                .removeIf(
                        e -> {
                            List<Integer> buckets = active.get(e.getKey().partition());
                            boolean open = buckets != null && (e.getKey().bucket() < 0 || buckets.contains(e.getKey().bucket()));
                            if (!open) {
                                e.getValue().close();
                            }
                            return !open;
                        });
    }

    /** Releases every writer's reservation. */
    void releaseAll() {
        writers.values().forEach(MemoryReservation::close);
        writers.clear();
    }
}
