package io.paimongov.runtime.compaction;

import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Admits compaction tasks by memory. Each task needs its working memory (merge readers and one
 * output writer, estimated per table) before it starts. One task's worth is reserved when the write
 * opens, so one compaction can always run and the write always makes progress; every further task
 * that would run at the same time reserves its own from the budget, and waits (cancellably) while
 * the budget is short. It never fails the write for that, and more threads never break the budget.
 *
 * <p><b>Thread-safety:</b> thread-safe; {@link #acquire} runs on compaction threads.
 */
public final class CompactionAdmission {

    private final MemoryBudget budget;
    private final LongSupplier releaseCached;
    private final long perTaskBytes;
    private final MemoryReservation base;
    private final LongAdder waits = new LongAdder();
    private boolean baseTaken;

    /**
     * @param base the reservation of one task's working memory, already grown by {@code
     *     perTaskBytes}; owned by this admission from now on
     * @param releaseCached gives the write's cached pages back, returning the bytes freed. Only that:
     *     a waiting task must never make Paimon flush, since a flush may wait for this very task
     */
    public CompactionAdmission(MemoryBudget budget, long perTaskBytes, MemoryReservation base, LongSupplier releaseCached) {
        this.budget = budget;
        this.releaseCached = releaseCached;
        this.perTaskBytes = perTaskBytes;
        this.base = base;
    }

    /** A task's hold on its working memory; closing it gives the memory back. */
    public interface Lease extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Waits until the task's working memory is held.
     *
     * @param check runs between waits; what it throws (cancellation) ends the wait
     */
    Lease acquire(Runnable check) throws InterruptedException {
        boolean waited = false;
        while (true) {
            check.run();
            synchronized (this) {
                if (!baseTaken) {
                    baseTaken = true;
                    return this::returnBase;
                }
            }
            MemoryReservation extra = budget.newReservation("compaction task");
            if (extra.tryGrow(perTaskBytes) || (releaseCached.getAsLong() > 0 && extra.tryGrow(perTaskBytes))) {
                return extra::close;
            }
            extra.close();
            if (!waited) {
                waits.increment();
                waited = true;
            }
            synchronized (this) {
                wait(20);
            }
        }
    }

    private synchronized void returnBase() {
        baseTaken = false;
        notifyAll();
    }

    /** Times a task had to wait for memory before it could start (exact). */
    public long waits() {
        return waits.sum();
    }

    /** Returns the base reservation; tasks still running keep theirs until they end. */
    void close() {
        base.close();
    }
}
