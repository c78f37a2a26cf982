package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowPartitionComputer;

/**
 * Admits a (partition, bucket) writer to a writer of its own in the write's memory, and makes room
 * for it. A writer of its own holds a reservation of its measured footprint ({@link
 * WriteFootprint#perWriterBytes()}) and, where it buffers in pages, its first {@value
 * GovernedTableWrite#MIN_WRITER_PAGES} pages, taken into the pool's first-pages floor before Paimon
 * creates it. At most {@link #maxOpen} writers are open at once: as many as fit in what the fixed
 * reservations and one compaction task leave (in half of it for writers that do not buffer in pages;
 * {@link #maxOpen(long, long, boolean)}), each counted with its footprint and room for a write buffer
 * of at least {@link WriteFootprint#minWriterBufferBytes()}, so a writer never gets so small a share
 * that it spills tiny runs.
 *
 * <p>When a new writer does not fit, room is made in this order: cached pages go back; the least
 * recently used open writer that may be closed is flushed and closed ({@link WriterEviction}), its
 * commit message and state kept so that it reopens where it left off ({@link ClosedWriters}); below
 * {@link #maxOpen}, the open writers' buffers are spilled (or flushed), largest first ({@link
 * BufferFlushes}). A writer that still does not fit is not admitted: {@link WriterRouting} sends its
 * rows to the shared sort, or, where that is off or cannot open, the write fails with {@link
 * ResourceExhaustedException} naming the budget, the writers open and the cost per writer.
 *
 * <p><b>Thread-safety:</b> none; the writing thread inside a write call.
 */
final class WriterAdmission {

    private final MemoryBudget budget;
    private final GovernedSegmentPool pool;
    private final WriteFootprint footprint;
    private final RowType partitionType;
    private final OpenWriters open;
    private final ClosedWriters closed;
    private final WriterEviction eviction;
    private final BufferFlushes flushes;
    private final AbstractFileStoreWrite<?> write;
    private final boolean sharedSort;
    private final int maxOpen;

    /**
     * @param footprint the write's footprint with a table mode's per-writer state
     * @param freeBytes what the fixed reservations and one compaction task leave of the budget
     */
    WriterAdmission(
            MemoryBudget budget,
            GovernedSegmentPool pool,
            WriteFootprint footprint,
            long freeBytes,
            RowType partitionType,
            OpenWriters open,
            ClosedWriters closed,
            WriterEviction eviction,
            BufferFlushes flushes,
            AbstractFileStoreWrite<?> write,
            boolean sharedSort) {
        this.budget = budget;
        this.pool = pool;
        this.footprint = footprint;
        this.partitionType = partitionType;
        this.open = open;
        this.closed = closed;
        this.eviction = eviction;
        this.flushes = flushes;
        this.write = write;
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

    /** The most writers open at once. */
    int maxOpen() {
        return maxOpen;
    }

    /** Admits {@code key} past {@link #maxOpen} while it fits and counts its first row; else the write fails with the numbers. */
    void admitPastCap(WriterKey key, long rowBytes) throws Exception {
        if (!admit(key, false)) {
            throw refused(key);
        }
        open.takeFirst(key, rowBytes);
    }

    /** Admits {@code key} now, closing writers whatever they took if needed (the shared sort's drain, a sort that cannot open). */
    void admitNow(WriterKey key) throws Exception {
        while (!admit(key)) {
            if (!eviction.closeLeastRecent(true)) {
                throw refused(key);
            }
        }
    }

    /** Admits {@code key} under {@link #maxOpen} if it fits; whether it was. */
    boolean admit(WriterKey key) throws Exception {
        return admit(key, true);
    }

    /**
     * Admits {@code key} if its reservation and first pages fit, making room by closing writers that
     * may be closed; with {@code capped}, also only while fewer than {@link #maxOpen} are open.
     */
    private boolean admit(WriterKey key, boolean capped) throws Exception {
        while (capped && open.size() >= maxOpen) {
            if (!eviction.closeLeastRecent(false)) {
                return false;
            }
        }
        MemoryReservation reservation = budget.newReservation(ConsumerKind.WRITER, name(key));
        try {
            boolean reserved = false;
            while (true) {
                reserved = reserved || reservation.tryGrow(footprint.perWriterBytes());
                if (reserved && holdFirstPages()) {
                    break;
                }
                // Room, cheapest first: cached pages, a writer that may be closed, then the open
                // writers' buffers spilled or flushed (as Paimon's own writers make room for a new one).
                if (pool.releaseCached() == 0 && !eviction.closeLeastRecent(false) && !flushes.flushLargestOnce()) {
                    reservation.close();
                    return false;
                }
            }
            closed.reopen(key, write);
        } catch (Exception | Error e) {
            reservation.close();
            throw e;
        }
        open.add(key, reservation);
        return true;
    }

    private boolean holdFirstPages() {
        return !footprint.buffersInPages() || pool.holdFirstPages(GovernedTableWrite.MIN_WRITER_PAGES);
    }

    private long firstPageBytes() {
        return footprint.buffersInPages() ? (long) GovernedTableWrite.MIN_WRITER_PAGES * pool.pageSize() : 0;
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
}
