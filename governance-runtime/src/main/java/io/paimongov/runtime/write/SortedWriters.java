package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.spill.TieredSortBuffer;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * The writers of one write that wait in its {@link SharedSort}: rows go in as {@link WritePath}
 * routes them ({@link WriterRouting.Route#SORTED}); at prepareCommit they are written writer by
 * writer, each writer admitted, given its rows in arrival order and closed before the next one opens,
 * its commit message joining the prepared ones.
 *
 * <p>The sort takes pages from the write's pool, never the first-pages floor kept for writers to
 * (re)start their buffers ({@link GovernedSegmentPool#nextSegmentAboveFloor()}). When the pool has none and the sort holds less than
 * 1/{@value #SORT_SHARE} of the budget, the open writers are made to flush first ({@link
 * BufferFlushes#reclaim}), so the sort's runs are never tiny because open writers hold the pages.
 *
 * <p><b>Thread-safety:</b> not thread-safe; used on the writing thread inside a write call.
 */
final class SortedWriters implements AutoCloseable {

    /** The sort may take pages from open writers up to this share of the budget. */
    static final int SORT_SHARE = 4;
    /** The sort's spill channels may take this share of the budget (as a writer's, {@link WriteFootprint}). */
    static final int CHANNEL_SHARE = 8;
    /** The stage of {@link MeasuredFootprints} (kind {@code pk}, format {@code any}) that measures one sorted writer's bookkeeping. */
    static final String SORTED_WRITER_STAGE = "sorted-key";

    private final OpenedWrite w;
    private SharedSort sort;
    /** The sort is being read by {@link #drain}. */
    private boolean draining;
    /** The sort could not open for lack of memory; tried again after the next drain. */
    private boolean unavailable;
    /** The sort's channel reservation, closed with it. */
    private MemoryReservation channels;
    /** The sort's view of the pool, holding pages taken before the sort opened until it uses them. */
    private SortPool sortPool;
    /**
     * What the write keeps per writer whose rows wait in the sort (the sort's index of writers and
     * the admission's set of them, each with a copy of the partition): the measured {@code
     * sorted-key} bytes of {@link MeasuredFootprints} for every such writer, made on first use,
     * given back when the drain has emptied the sort.
     */
    private MemoryReservation sortedWriters;
    private long bytesPerSortedWriter;

    SortedWriters(OpenedWrite write) {
        this.w = write;
    }

    /**
     * Whether the sort takes rows: it is open, or it can be opened now (its spill channels and first
     * pages fit in the budget, after making room). A sort that could not open is not tried again
     * before the next drain.
     */
    boolean ready() throws Exception {
        if (sort == null && !unavailable) {
            sort = tryOpen();
            unavailable = sort == null;
        }
        return sort != null;
    }

    /** Keeps {@code row} of ({@code partition}, {@code bucket}) for the drain; only after {@link #ready()}. */
    void add(BinaryRow partition, int bucket, InternalRow row) throws Exception {
        if (!ready()) {
            throw new IllegalStateException("the shared sort is not open");
        }
        if (sort.add(partition, bucket, row)) {
            chargeSortedWriter();
        }
        w.context.recorder().recordSorted(1);
    }

    /**
     * Charges the bookkeeping of a writer the sort has just taken its first row of, spilling the
     * sort's pages or making the open writers flush when it does not fit.
     *
     * @throws ResourceExhaustedException when it does not fit even then
     */
    private void chargeSortedWriter() throws Exception {
        if (sortedWriters == null) {
            sortedWriters = w.budget.newReservation(ConsumerKind.WRITER, "shared sort writers");
            bytesPerSortedWriter = MeasuredFootprints.get().bytes("pk", "any", SORTED_WRITER_STAGE, w.context.pool().pageSize());
        }
        if (!sortedWriters.tryGrow(bytesPerSortedWriter)) {
            spillForRoom();
            if (!sortedWriters.tryGrow(bytesPerSortedWriter)) {
                w.writers.flushes().reclaim(bytesPerSortedWriter);
                sortedWriters.grow(bytesPerSortedWriter);
            }
        }
    }

    boolean isEmpty() {
        return sort == null || sort.isEmpty();
    }

    /**
     * Writes every waiting row through its own writer, one writer at a time, and returns their commit
     * messages. The sort's pages are spilled first when the first writer's pages, or the commit
     * messages the drained writers leave, do not fit next to them.
     */
    List<CommitMessage> drain() throws Exception {
        if (isEmpty()) {
            return List.of();
        }
        // Each drained writer leaves a commit message, charged until prepareCommit returns, and a
        // drained writer may wait for a compaction task that needs its memory; the sort's pages
        // cannot be given back while it is read, so they go to disk first when those would not fit
        // next to them, as when the first writer's pages do not.
        long messages = (long) sort.writerCount() * w.footprint.closedMessageBytes();
        if (messages + w.footprint.compactionBytes() > w.budget.availableBytes()
                || !w.context.pool().holdFirstPages(GovernedTableWrite.MIN_WRITER_PAGES)) {
            spillForRoom();
        }
        draining = true;
        try {
            drainSort();
        } finally {
            draining = false;
        }
        w.writers.routing().sortDrained();
        if (sortedWriters != null) {
            sortedWriters.shrink(sortedWriters.bytes());
        }
        unavailable = false;
        return new ArrayList<>(w.writers.closed().takeMessages());
    }

    private void drainSort() throws Exception {
        sort.drain(
                new SharedSort.Sink() {
                    private int bucket;

                    @Override
                    public void begin(WriterKey writer) throws Exception {
                        w.context.token().throwIfCancelled();
                        w.writers.admission().admitNow(writer);
                        bucket = writer.bucket();
                    }

                    @Override
                    public void row(InternalRow row) throws Exception {
                        w.write.write(row, bucket);
                    }

                    @Override
                    public void end(WriterKey writer) throws Exception {
                        w.writers.eviction().closeDrained(writer, w.mode == OpenedWrite.Mode.STREAM);
                    }
                });
    }

    /**
     * Opens the sort when its channels and first pages fit in the budget and the engine grants them,
     * making room first; null when they do not.
     */
    private SharedSort tryOpen() throws Exception {
        GovernedSegmentPool pool = w.context.pool();
        int block = w.footprint.spillBlockBytes();
        long perChannel = SpillChannels.tieredChannelBytes(pool.pageSize(), block);
        int fanIn = fanIn(w.budget.shareBytes(), perChannel, block);
        long channelBytes = TieredSortBuffer.channelBytes(fanIn, perChannel);
        long need = channelBytes + (long) GovernedTableWrite.MIN_WRITER_PAGES * pool.pageSize();
        if (w.budget.availableBytes() < need) {
            w.writers.flushes().reclaim(need);
            if (w.budget.availableBytes() < need) {
                return null;
            }
        }
        CoreOptions core = CoreOptions.fromMap(w.table.options());
        MemoryReservation reservation = w.budget.newReservation(ConsumerKind.SPILL_IO, "shared sort spill channels");
        SortPool sortPool = new SortPool(pool, w.budget.shareBytes() / SORT_SHARE / pool.pageSize());
        SharedSort opened = null;
        try {
            // The engine may be tighter than the budget: a sort whose first pages or channels the
            // engine will not grant is not opened, and the writer is admitted or refused without it.
            if (sortPool.prime(GovernedTableWrite.MIN_WRITER_PAGES)) {
                opened = new SharedSort(
                        w.table.rowType(), sortPool, w.context.ioManager(), fanIn,
                        w.footprint.spillRunCompression(core.spillCompressOptions()), core.spillCompressOptions(), block, reservation,
                        perChannel);
            }
        } catch (ResourceExhaustedException e) {
            // the channels were refused: not opened
        } finally {
            if (opened == null) {
                sortPool.returnPrimed();
                reservation.close();
            }
        }
        if (opened != null) {
            this.channels = reservation;
            this.sortPool = sortPool;
        }
        return opened;
    }

    /**
     * The shared sort's merge fan-in: as many channels as fit in 1/{@value #CHANNEL_SHARE} of the
     * budget, from 2 to the writers' most at that block ({@link SpillChannels#maxTieredFanIn}).
     */
    static int fanIn(long budgetBytes, long perChannel, int block) {
        long fit = budgetBytes / CHANNEL_SHARE / Math.max(1, perChannel) - 1;
        return (int) Math.max(2, Math.min(SpillChannels.maxTieredFanIn(block), fit));
    }

    /**
     * Spills the sort's pages to give budget back (before a drain, or for a compaction task that
     * waits for memory); the bytes of budget freed. Nothing while the sort is being drained: its pages are being read
     * ({@link #drain} made room for one task before it began).
     */
    long spillForRoom() throws Exception {
        if (sort == null || sort.isEmpty() || draining) {
            return 0;
        }
        sort.spill();
        return w.context.pool().releaseCached();
    }

    @Override
    public void close() {
        if (sort != null) {
            sort.close();
            sort = null;
        }
        if (sortPool != null) {
            sortPool.returnPrimed();
            sortPool = null;
        }
        if (channels != null) {
            channels.close();
            channels = null;
        }
        if (sortedWriters != null) {
            sortedWriters.close();
            sortedWriters = null;
        }
    }

    /** The write's pool as the sort sees it: a refused page makes the open writers flush while the sort holds little. */
    private final class SortPool implements MemorySegmentPool {
        private final GovernedSegmentPool pool;
        private final long share;
        private final List<MemorySegment> primed = new ArrayList<>();
        private long held;

        SortPool(GovernedSegmentPool pool, long sharePages) {
            this.pool = pool;
            this.share = sharePages;
        }

        @Override
        public int pageSize() {
            return pool.pageSize();
        }

        @Override
        public void returnAll(List<MemorySegment> memory) {
            held -= memory.size();
            pool.returnAll(memory);
        }

        /**
         * Takes {@code count} pages now, making room as {@link #nextSegment()} does; false, holding
         * whatever it got, when they cannot all be had.
         */
        boolean prime(int count) {
            while (primed.size() < count) {
                MemorySegment page = take();
                if (page == null) {
                    return false;
                }
                primed.add(page);
            }
            return true;
        }

        /** Gives back the primed pages the sort did not use. */
        void returnPrimed() {
            returnAll(new ArrayList<>(primed));
            primed.clear();
        }

        @Override
        public int freePages() {
            return primed.size() + pool.freePages();
        }

        @Override
        public MemorySegment nextSegment() {
            return primed.isEmpty() ? take() : primed.remove(primed.size() - 1);
        }

        /** A page from the pool above its floor, the open writers made to flush while the sort holds little. */
        private MemorySegment take() {
            MemorySegment page = pool.nextSegmentAboveFloor();
            if (page == null && held < share) {
                try {
                    w.writers.flushes().reclaim(pool.pageSize());
                } catch (Exception e) {
                    throw new IllegalStateException("making room for the shared sort failed", e);
                }
                page = pool.nextSegmentAboveFloor();
            }
            if (page != null) {
                held++;
            }
            return page;
        }
    }
}
