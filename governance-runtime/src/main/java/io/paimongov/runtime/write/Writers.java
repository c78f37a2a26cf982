package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.metrics.WriterMetrics;
import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.types.RowType;

/**
 * The parts that manage a write's (partition, bucket) writers, each with one job: {@link
 * WriterRouting} sends each row to its writer or the shared sort, {@link WriterAdmission} admits a
 * writer to memory, {@link WriterEviction} closes writers, {@link ClosedWriters} keeps what closed
 * writers leave, {@link BufferFlushes} frees the buffers' memory, and {@link OpenWriters} owns the
 * open writers' reservations. Made once per write ({@link #of}).
 *
 * <p>Immutable; the parts' own thread-safety applies.
 */
record Writers(
        OpenWriters open,
        ClosedWriters closed,
        BufferFlushes flushes,
        WriterEviction eviction,
        WriterAdmission admission,
        WriterRouting routing) {

    /**
     * The writers of {@code write}, whose writers take their memory from {@code owners}.
     *
     * @param footprint the write's footprint with a table mode's per-writer state
     * @param freeBytes what the fixed reservations and one compaction task leave of the budget
     * @param callLock the write's call lock, held by every call
     */
    static Writers of(
            MemoryBudget budget,
            GovernedSegmentPool pool,
            WriteFootprint footprint,
            long freeBytes,
            RowType partitionType,
            MemoryPoolFactory owners,
            AbstractFileStoreWrite<?> write,
            ReentrantLock callLock,
            WriterMetrics metrics,
            long earlyCloseMinBytes,
            boolean sharedSort) {
        OpenWriters open = new OpenWriters(metrics);
        BufferFlushes flushes = new BufferFlushes(pool, owners, callLock);
        ClosedWriters closed = new ClosedWriters(budget, flushes, footprint.closedMessageBytes());
        WriterEviction eviction = new WriterEviction(open, closed, write, metrics, earlyCloseMinBytes);
        WriterAdmission admission = new WriterAdmission(
                budget, pool, footprint, freeBytes, partitionType, open, closed, eviction, flushes, write, sharedSort);
        return new Writers(open, closed, flushes, eviction, admission, new WriterRouting(open, admission, sharedSort));
    }

    /** Releases every open writer's reservation and the charge of messages not taken (a write given up drops them). */
    void releaseAll() {
        open.releaseAll();
        closed.release();
    }
}
