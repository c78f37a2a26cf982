package io.paimongov.spark;

import io.paimongov.allocator.support.HeapPagedAllocator;
import io.paimongov.allocator.support.LeakReport;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator.MemoryRelief;
import java.util.Collection;
import java.util.concurrent.atomic.LongAdder;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write's memory as a Spark {@link MemoryConsumer} of the task: every page and every byte
 * reservation is granted by the task's {@link TaskMemoryManager} ({@code acquireMemory}) before it
 * is handed out, and given back with {@code freeMemory}, so Spark's execution-memory pool, its
 * spill decisions and its peak execution memory see the whole writer.
 *
 * <p>How it works. Spark's own on-heap pages are {@code long[]}, which Paimon cannot wrap, so a page
 * here is a {@code byte[]} of {@link #pageSize()} bytes that only Spark's accounting knows about. A
 * request that Spark grants only in part is given back at once and refused with {@link
 * ResourceExhaustedException}, which the runtime turns into "no page" for Paimon (spill or flush).
 * The write's own capacity is checked first, so Spark is never asked for more than the budget.
 *
 * <p>Cooperative spill. When another consumer of the task needs memory, Spark calls {@link
 * #spill(long, MemoryConsumer)} on the requesting thread inside the TaskMemoryManager's lock; this
 * asks the {@link MemoryRelief} the runtime bound, which releases cached pages and, when the write
 * is idle, makes Paimon flush or spill (returning pages through {@link #release(Collection)}). It
 * returns the bytes actually given back to Spark. When Spark asks this consumer itself to spill
 * while it is the requester, the request came from inside a page or reservation request of this
 * write, in the middle of a Paimon call: nothing is flushed there (Paimon's writers are not
 * re-entrant) and the refusal that follows makes Paimon spill on its own.
 *
 * <p>Locking. The one lock is the TaskMemoryManager itself, which Spark already holds around every
 * {@code acquireExecutionMemory} and every {@code spill} callback; it is {@link HeapPagedAllocator}'s
 * lock, so the counters and every call into Spark run under it, so there is a single lock order (the write's call lock, then the
 * TaskMemoryManager) and a spill callback that releases pages re-enters a lock its thread holds.
 * Page arrays are allocated outside it.
 *
 * <p><b>Thread-safety:</b> thread-safe. <b>May throw:</b> {@link #allocate} throws {@link
 * ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases and {@link #spill} never throw; {@link #close()}
 * throws {@link IllegalStateException} when memory was still held, after giving it back to Spark.
 */
final class SparkSegmentAllocator extends HeapPagedAllocator {

    private static final Logger LOG = LoggerFactory.getLogger(SparkSegmentAllocator.class);

    /** Bytes every open allocator of this process holds from Spark; see {@link SparkGovernanceProvider#heldBytes()}. */
    static final LongAdder HELD = new LongAdder();

    private final Consumer consumer;
    private final LongAdder givenBackBySpill = new LongAdder();
    private long freedTotal;
    private volatile MemoryRelief relief = MemoryRelief.NONE;

    SparkSegmentAllocator(TaskMemoryManager tmm, int pageSize, long capacity) {
        super("spark", "spark task memory pages", pageSize, capacity, tmm);
        this.consumer = new Consumer(tmm, pageSize);
    }

    @Override
    public void bindRelief(MemoryRelief relief) {
        this.relief = relief == null ? MemoryRelief.NONE : relief;
    }

    /**
     * Asks Spark for {@code bytes}, all or nothing. Caller holds the TMM lock. Spark may call {@link
     * #spill} on this thread from inside {@code acquireMemory}.
     */
    @Override
    protected boolean reserveBytes(long bytes) {
        long granted = consumer.acquireMemory(bytes);
        if (granted < bytes) {
            consumer.freeMemory(granted);
            return false;
        }
        HELD.add(bytes);
        return true;
    }

    /**
     * Gives {@code bytes} back to Spark. Caller holds the TMM lock. Throws what Spark throws; the base
     * then keeps the bytes counted and this allocator's own counter of them is not moved either.
     */
    @Override
    protected void unreserveBytes(long bytes) {
        consumer.freeMemory(bytes);
        HELD.add(-bytes);
        freedTotal += bytes;
    }

    /**
     * Spark asks for memory back. Never acquires, never blocks on the writing thread (the relief
     * only flushes when it gets the write's lock at once), never throws: a failing flush counts as
     * what it freed before failing, and the write sees the failure itself at its next call.
     *
     * @return the bytes given back to Spark during this call
     */
    long spill(long size, MemoryConsumer trigger) {
        if (trigger == consumer) {
            return 0;
        }
        long before;
        synchronized (lock) {
            if (isClosed()) {
                return 0;
            }
            before = freedTotal;
        }
        try {
            relief.relieve(size);
        } catch (RuntimeException e) {
            LOG.warn("giving {} bytes back to Spark failed; the write will see the failure itself", size, e);
        }
        long freed;
        synchronized (lock) {
            freed = freedTotal - before;
        }
        givenBackBySpill.add(freed);
        return freed;
    }

    /** Bytes {@link #spill} gave back to Spark so far (exact). */
    long givenBackBySpill() {
        return givenBackBySpill.sum();
    }

    /** The write's consumer as Spark's task memory manager knows it. */
    MemoryConsumer consumer() {
        return consumer;
    }

    /**
     * Pages are heap arrays: a Paimon write that still holds one at close keeps a valid array, only
     * Spark's accounting was returned.
     */
    @Override
    protected IllegalStateException closeEngine(LeakReport leak) {
        if (!leak.found()) {
            return null;
        }
        long kept = notGivenBack();
        return new IllegalStateException("spark allocator closed with " + leak.heldBytes() + " bytes still held ("
                + leak.pages() + " pages, " + leak.reservedBytes() + " reserved bytes); "
                + (kept == 0 ? "they were given back to the task's memory manager"
                        : kept + " bytes of them could not be given back to the task's memory manager"));
    }

    /**
     * The write as Spark sees it: a {@link MemoryConsumer} of the task whose spill callback is the
     * allocator's. Spark's {@code MemoryConsumer} is a class, so the allocator, which extends {@link
     * HeapPagedAllocator}, holds one rather than being one.
     */
    private final class Consumer extends MemoryConsumer {

        Consumer(TaskMemoryManager tmm, int pageSize) {
            super(tmm, pageSize, MemoryMode.ON_HEAP);
        }

        @Override
        public long spill(long size, MemoryConsumer trigger) {
            return SparkSegmentAllocator.this.spill(size, trigger);
        }
    }
}
