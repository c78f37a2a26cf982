package io.paimongov.runtime.write;

import io.paimongov.runtime.memory.GovernedSegmentPool;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.runtime.internal.metrics.WriterMetrics;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowPartitionComputer;

/**
 * Decides, row by row, whether a (partition, bucket) writer gets a writer of its own in the write's
 * memory, and makes room for it. A writer of its own holds a reservation of its measured footprint
 * ({@link WriteFootprint#perWriterBytes()}) and, where it buffers in pages, its first {@value
 * GovernedTableWrite#MIN_WRITER_PAGES} pages, taken into the pool's first-pages floor before Paimon
 * creates it. At most {@link #maxOpen} writers are open at once: as many as fit in what the fixed
 * reservations and one compaction task leave (in half of it for writers that do not buffer in pages;
 * {@link #maxOpen(long, long, boolean)}), each counted with its footprint and room for a write buffer
 * of at least {@link WriteFootprint#minWriterBufferBytes()}, so a writer never gets so small a share
 * that it spills tiny runs.
 *
 * <p>When a new writer does not fit, room is made in this order: cached pages go back; the least
 * recently used open writer that has taken at least {@code governance.write.early-close-min-bytes}
 * of input since it opened (or none at all) is flushed and closed ({@link PaimonWriters}), its commit
 * message kept for the next prepareCommit and its state kept so that it reopens where it left off;
 * below {@link #maxOpen}, the open writers' buffers are spilled (or flushed), largest first, as
 * Paimon's own writers make room for a new one; at {@link #maxOpen}, the writer's rows go to the
 * write's {@link SharedSort} ({@link Route#SORTED}). Only when the
 * shared sort is switched off, or the pages a writer needs are refused even after that, does the
 * write fail, with {@link ResourceExhaustedException} naming the budget, the writers open and the
 * cost per writer.
 *
 * <p><b>Thread-safety:</b> {@link #route} and the methods it leads to run on the writing thread inside
 * a write call. {@link #reclaim} runs on any thread but makes Paimon flush only while it holds the
 * write's call lock without waiting for it (the writing thread inside a call, or any thread while the
 * write is idle), since Paimon's writers are not thread-safe.
 */
final class WriterAdmission {

    /**
     * One (partition, bucket) writer; bucket -1 where Paimon picks buckets itself. Its hash is
     * computed once. Every row looks its writer up, so the hash and the comparison read a small
     * partition (one segment, up to {@value #WORD_BYTES} bytes: a few fixed-width fields or short
     * strings) as whole words instead of going through {@link BinaryRow#hashCode} and {@link
     * BinaryRow#equals}, which walk it byte by byte; a partition compares equal to another exactly
     * when its bytes do, as for {@link BinaryRow#equals}.
     */
    static final class WriterKey {
        /** Partitions up to this size are hashed and compared word by word. */
        static final int WORD_BYTES = 64;

        private final BinaryRow partition;
        private final int bucket;
        private final int hash;

        WriterKey(BinaryRow partition, int bucket) {
            this.partition = partition;
            this.bucket = bucket;
            this.hash = hash(partition, bucket);
        }

        /** The hash of the key of ({@code partition}, {@code bucket}), computed without making one. */
        static int hash(BinaryRow partition, int bucket) {
            if (!inWords(partition)) {
                return 31 * partition.hashCode() + bucket;
            }
            int size = partition.getSizeInBytes();
            MemorySegment segment = partition.getSegments()[0];
            int offset = partition.getOffset();
            long h = size;
            for (int i = 0; i < size; i += 8) {
                h = (h ^ segment.getLong(offset + i)) * 0x9E3779B97F4A7C15L;
            }
            return 31 * (int) (h ^ (h >>> 32)) + bucket;
        }

        /** Whether this key is ({@code partition}, {@code bucket}); {@code hash} is {@link #hash} of them. */
        boolean is(BinaryRow partition, int bucket, int hash) {
            return this.hash == hash && this.bucket == bucket && sameBytes(this.partition, partition);
        }

        private static boolean sameBytes(BinaryRow a, BinaryRow b) {
            int size = a.getSizeInBytes();
            if (size != b.getSizeInBytes()) {
                return false;
            }
            if (!inWords(a) || !inWords(b)) {
                return a.equals(b);
            }
            MemorySegment as = a.getSegments()[0];
            MemorySegment bs = b.getSegments()[0];
            int ao = a.getOffset();
            int bo = b.getOffset();
            for (int i = 0; i < size; i += 8) {
                if (as.getLong(ao + i) != bs.getLong(bo + i)) {
                    return false;
                }
            }
            return true;
        }

        /** Whether {@code row} is hashed and compared word by word: one segment, whole words, at most {@value #WORD_BYTES} bytes. */
        private static boolean inWords(BinaryRow row) {
            int size = row.getSizeInBytes();
            return row.getSegments().length == 1 && (size & 7) == 0 && size <= WORD_BYTES;
        }

        BinaryRow partition() {
            return partition;
        }

        int bucket() {
            return bucket;
        }

        @Override
        public boolean equals(Object o) {
            return this == o || (o instanceof WriterKey k && k.is(partition, bucket, hash));
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return "WriterKey[partition=" + partition + ", bucket=" + bucket + "]";
        }
    }

    /** Where a row goes. */
    enum Route {
        /** To its own open writer. */
        DIRECT,
        /** To the write's shared sort. */
        SORTED
    }

    private static final class Open {
        final MemoryReservation reservation;
        long inputBytes;

        Open(MemoryReservation reservation) {
            this.reservation = reservation;
        }
    }

    private final MemoryBudget budget;
    private final GovernedSegmentPool pool;
    private final WriteFootprint footprint;
    private final RowType partitionType;
    private final MemoryPoolFactory owners;
    private final ReentrantLock callLock;
    private final WriterMetrics metrics;
    private final long earlyCloseMinBytes;
    private final boolean sharedSort;
    private final int maxOpen;
    private AbstractFileStoreWrite<?> write;
    /** Open writers, each stamped with its last use. */
    private final WriterTable<Open> open = new WriterTable<>();
    /** Writers closed early, by key: reopened from here. */
    private final Map<WriterKey, List<PaimonWriters.Closed>> closed = new HashMap<>();
    /** Messages of writers closed since the last prepareCommit. */
    private final List<CommitMessage> closedMessages = new ArrayList<>();
    /** What {@link #closedMessages} keep on the heap ({@link WriteFootprint#closedMessageBytes()} per file); made on first use. */
    private MemoryReservation keptMessages;
    /** Writers whose rows go to the shared sort until the next prepareCommit (the value is the key). */
    private final WriterTable<WriterKey> sorted = new WriterTable<>();

    WriterAdmission(
            MemoryBudget budget,
            GovernedSegmentPool pool,
            WriteFootprint footprint,
            long freeBytes,
            RowType partitionType,
            MemoryPoolFactory owners,
            ReentrantLock callLock,
            WriterMetrics metrics,
            long earlyCloseMinBytes,
            boolean sharedSort) {
        this.budget = budget;
        this.pool = pool;
        this.footprint = footprint;
        this.partitionType = partitionType;
        this.owners = owners;
        this.callLock = callLock;
        this.metrics = metrics;
        this.earlyCloseMinBytes = earlyCloseMinBytes;
        this.sharedSort = sharedSort;
        long perOpen = footprint.perWriterBytes() + Math.max(firstPageBytes(), footprint.minWriterBufferBytes());
        this.maxOpen = maxOpen(freeBytes, perOpen, footprint.buffersInPages());
    }

    /**
     * The most writers of their own open at once: as many as fit, each at {@code perOpen} bytes, in
     * {@code freeBytes} (what the fixed reservations and one compaction task leave) where writers
     * buffer in pages, in half of it where they do not; at least 1. A writer that buffers in pages
     * gives them back by spilling, so the shared sort takes its room from the open writers when it
     * needs it; a writer that does not holds only its footprint, which only closing it returns, so
     * half is kept for the sort. Halving for buffered writers too left a primary-key ORC table of 8
     * buckets at 6 MiB 3 writers of their own, and the sort spilled 5 buckets' rows twice
     * (docs/performance.md).
     */
    static int maxOpen(long freeBytes, long perOpen, boolean buffersInPages) {
        long room = buffersInPages ? freeBytes : freeBytes / 2;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, room / Math.max(1, perOpen)));
    }

    /** Set once, after Paimon's write is made. */
    void attach(AbstractFileStoreWrite<?> paimonWrite) {
        this.write = paimonWrite;
    }

    /** The most writers open at once. */
    int maxOpen() {
        return maxOpen;
    }

    /**
     * Where the next row of ({@code partition}, {@code bucket}), {@code rowBytes} long, goes; a
     * writer admitted here is open in Paimon's write when this returns {@link Route#DIRECT} for it
     * (reopened from its early-close state) or is created by Paimon at the row's write.
     *
     * @throws ResourceExhaustedException when the writer can get neither a writer of its own nor
     *     room in the shared sort
     */
    Route route(BinaryRow partition, int bucket, long rowBytes) throws Exception {
        int hash = WriterKey.hash(partition, bucket);
        Open o = open.get(partition, bucket, hash);
        if (o != null) {
            o.inputBytes += rowBytes;
            return Route.DIRECT;
        }
        if (sorted.contains(partition, bucket, hash)) {
            return Route.SORTED;
        }
        WriterKey key = new WriterKey(partition.copy(), bucket);
        if (admit(key)) {
            open.get(partition, bucket).inputBytes += rowBytes;
            return Route.DIRECT;
        }
        if (!sharedSort) {
            // No sort to fall back on: past the cap while the writer fits, as Paimon's own writers share a pool.
            admitPastCap(key, rowBytes);
            return Route.DIRECT;
        }
        sorted.put(key, key);
        return Route.SORTED;
    }

    /**
     * Admits the writer {@link #route} sent to the shared sort when the sort cannot open (a budget too
     * small for its spill channels next to the open writers): past {@link #maxOpen} while its
     * reservation and first pages fit (closing writers that may be closed), the open writers sharing
     * the pages as Paimon's own writers do; else the write fails with the numbers. Writers that took
     * less than the early-close minimum are not closed here: closing them row by row would roll a
     * file per row and never finish.
     */
    void admitClosingAny(BinaryRow partition, int bucket, long rowBytes) throws Exception {
        WriterKey key = new WriterKey(partition.copy(), bucket);
        sorted.remove(key);
        admitPastCap(key, rowBytes);
    }

    /** Admits {@code key} past {@link #maxOpen} while it fits and counts its first row; else the write fails with the numbers. */
    private void admitPastCap(WriterKey key, long rowBytes) throws Exception {
        if (!admit(key, false)) {
            throw refused(key);
        }
        open.get(key.partition(), key.bucket()).inputBytes += rowBytes;
    }

    /** Admits {@code key} now, closing writers whatever they took if needed (the shared sort's drain, a sort that cannot open). */
    void admitNow(WriterKey key) throws Exception {
        while (!admit(key)) {
            if (!closeLeastRecent(true)) {
                throw refused(key);
            }
        }
    }

    /**
     * Closes the writer of {@code key} after the shared sort gave it its rows; its message joins
     * those of the next prepareCommit. With {@code reopenable} (a streaming write, which may get
     * rows of this writer after the checkpoint) its state is kept to reopen it; a batch write's
     * drain is its last use, so the state, which holds the writer's file lists and index or
     * deletion-vector maintainers, is dropped at once.
     */
    void closeDrained(WriterKey key, boolean reopenable) throws Exception {
        closeWriter(key, false, reopenable);
    }

    /**
     * Drops the states of writers closed early: after a batch write's prepareCommit no writer is
     * reopened.
     */
    void forgetClosed() {
        closed.clear();
    }

    private boolean admit(WriterKey key) throws Exception {
        return admit(key, true);
    }

    /**
     * Admits {@code key} if its reservation and first pages fit, making room by closing writers that
     * may be closed; with {@code capped}, also only while fewer than {@link #maxOpen} are open.
     */
    private boolean admit(WriterKey key, boolean capped) throws Exception {
        while (capped && open.size() >= maxOpen) {
            if (!closeLeastRecent(false)) {
                return false;
            }
        }
        MemoryReservation reservation = budget.newReservation(name(key));
        try {
            boolean reserved = false;
            while (true) {
                reserved = reserved || reservation.tryGrow(footprint.perWriterBytes());
                if (reserved && holdFirstPages()) {
                    break;
                }
                // Room, cheapest first: cached pages, a writer that may be closed, then the open
                // writers' buffers spilled or flushed (as Paimon's own writers make room for a new one).
                if (pool.releaseCached() == 0 && !closeLeastRecent(false) && !flushLargestOnce()) {
                    reservation.close();
                    return false;
                }
            }
            List<PaimonWriters.Closed> states = closed.remove(key);
            if (states != null) {
                for (PaimonWriters.Closed state : states) {
                    PaimonWriters.reopen(write, state);
                }
            }
        } catch (Exception | Error e) {
            reservation.close();
            throw e;
        }
        open.put(key, new Open(reservation));
        metrics.recordWritersOpen(open.size());
        return true;
    }

    private boolean holdFirstPages() {
        return !footprint.buffersInPages() || pool.holdFirstPages(GovernedTableWrite.MIN_WRITER_PAGES);
    }

    private long firstPageBytes() {
        return footprint.buffersInPages() ? (long) GovernedTableWrite.MIN_WRITER_PAGES * pool.pageSize() : 0;
    }

    /**
     * Closes the least recently used open writer that may be closed: with {@code any}, any writer;
     * otherwise one that took at least the early-close minimum of input, or nothing.
     *
     * @return whether one was closed
     */
    private boolean closeLeastRecent(boolean any) throws Exception {
        WriterKey least = open.leastRecent(o -> any || o.inputBytes == 0 || o.inputBytes >= earlyCloseMinBytes);
        if (least == null) {
            return false;
        }
        closeWriter(least, true);
        return true;
    }

    private void closeWriter(WriterKey key, boolean early) throws Exception {
        closeWriter(key, early, true);
    }

    private void closeWriter(WriterKey key, boolean early, boolean keepState) throws Exception {
        Open o = open.remove(key);
        int files = 0;
        List<PaimonWriters.Closed> states = new ArrayList<>();
        for (int bucket : buckets(key)) {
            PaimonWriters.Closed c = PaimonWriters.close(write, key.partition(), bucket);
            closedMessages.add(c.message());
            states.add(c);
            files += c.newFiles();
            chargeKept(Math.max(1, c.newFiles()) * footprint.closedMessageBytes());
        }
        if (keepState) {
            closed.put(key, states);
        } else {
            closed.remove(key);
        }
        if (o != null) {
            o.reservation.close();
        }
        metrics.recordWritersOpen(open.size());
        if (early) {
            metrics.recordClosedEarly(files);
        }
    }

    /** The Paimon buckets behind {@code key}: its own, or every open one of its partition for bucket -1. */
    private List<Integer> buckets(WriterKey key) {
        if (key.bucket() >= 0) {
            return PaimonWriters.isOpen(write, key.partition(), key.bucket()) ? List.of(key.bucket()) : List.of();
        }
        var buckets = write.writers().get(key.partition());
        return buckets == null ? List.of() : new ArrayList<>(buckets.keySet());
    }

    /**
     * Charges {@code bytes} of a kept commit message: from the budget's free room, else after
     * making room as {@link #reclaim} does; a budget that cannot hold it fails the write with the
     * numbers.
     */
    private void chargeKept(long bytes) throws Exception {
        if (keptMessages == null) {
            keptMessages = budget.newReservation("commit messages of closed writers");
        }
        if (!keptMessages.tryGrow(bytes)) {
            reclaim(bytes);
            keptMessages.grow(bytes);
        }
    }

    /** The states of the writers closed early and kept to reopen (read-only view). */
    List<PaimonWriters.Closed> closedStates() {
        List<PaimonWriters.Closed> all = new ArrayList<>();
        closed.values().forEach(all::addAll);
        return all;
    }

    /** Takes the messages of writers closed since the last call; their charge goes with them. */
    List<CommitMessage> takeClosedMessages() {
        List<CommitMessage> taken = new ArrayList<>(closedMessages);
        closedMessages.clear();
        releaseKept();
        return taken;
    }

    /** The shared sort's writers start afresh after a drain: later rows may get writers of their own. */
    void sortDrained() {
        sorted.clear();
    }

    /** Writers open now. */
    int size() {
        return open.size();
    }

    private String name(WriterKey key) {
        String partition = InternalRowPartitionComputer.partToSimpleString(partitionType, key.partition(), "/", 100);
        return "writer[partition=" + partition + ", bucket=" + key.bucket() + "]";
    }

    private ResourceExhaustedException refused(WriterKey key) {
        long cost = footprint.perWriterBytes() + firstPageBytes();
        return budget.exhausted(
                name(key) + " (writers open: " + open.size() + " of at most " + maxOpen + ", each costs " + cost
                        + " bytes: footprint " + footprint.perWriterBytes() + " + first pages " + firstPageBytes()
                        + (sharedSort ? "" : "; the shared sort is off") + ")",
                cost);
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
            MemoryOwner largest = largestOwner();
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

    /** Spills or flushes the open writer that holds most pages; whether it gave any back to the pool. */
    private boolean flushLargestOnce() throws Exception {
        MemoryOwner largest = largestOwner();
        if (largest == null) {
            return false;
        }
        long before = largest.memoryOccupancy();
        largest.flushMemory();
        return largest.memoryOccupancy() < before;
    }

    private MemoryOwner largestOwner() {
        MemoryOwner largest = null;
        for (MemoryOwner owner : owners.memoryOwners()) {
            if (owner != null && owner.memoryOccupancy() > 0
                    && (largest == null || owner.memoryOccupancy() > largest.memoryOccupancy())) {
                largest = owner;
            }
        }
        return largest;
    }

    /**
     * Closes every open writer after a batch prepareCommit prepared them (nothing is left to flush)
     * and returns their reservations.
     */
    void closePrepared() throws Exception {
        for (WriterKey key : open.keys()) {
            for (int bucket : buckets(key)) {
                var buckets = write.writers().get(key.partition());
                var container = buckets.remove(bucket);
                if (buckets.isEmpty()) {
                    write.writers().remove(key.partition());
                }
                container.writer.close();
            }
            open.remove(key).reservation.close();
        }
        metrics.recordWritersOpen(0);
    }

    /** Releases the writers Paimon no longer keeps: those not in {@code active} (partition to buckets). */
    void releaseClosed(Map<BinaryRow, List<Integer>> active) {
        open.removeIf(
                (key, o) -> {
                    List<Integer> buckets = active.get(key.partition());
                    boolean kept = buckets != null && (key.bucket() < 0 || buckets.contains(key.bucket()));
                    if (!kept) {
                        o.reservation.close();
                    }
                    return !kept;
                });
        metrics.recordWritersOpen(open.size());
    }

    /** Releases every writer's reservation, and the charge of messages not taken (a write given up drops them). */
    void releaseAll() {
        open.values().forEach(o -> o.reservation.close());
        open.clear();
        metrics.recordWritersOpen(0);
        if (keptMessages != null) {
            keptMessages.close();
            keptMessages = null;
        }
    }

    private void releaseKept() {
        if (keptMessages != null) {
            keptMessages.shrink(keptMessages.bytes());
        }
    }
}
