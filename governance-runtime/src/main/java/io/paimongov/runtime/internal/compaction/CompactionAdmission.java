package io.paimongov.runtime.internal.compaction;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.memory.Reclaimer;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * Admits compaction tasks by memory. Each task needs its working memory (merge readers and one
 * output writer, estimated per table) before it starts, and reserves it from the budget only then:
 * a write that never compacts, or compacts rarely, lends that memory to its write buffers. The write
 * is opened only when the budget can hold one task beside the fixed reservations and one writer, so
 * room for a task can always be made by spilling write buffers.
 *
 * <p>A task first takes free memory and cached pages on its own thread. When that is not enough it
 * waits, and the writing thread makes room for it: at the start of each write call and while it
 * waits for a task's result ({@link #serveWaiting}), it spills the largest write buffers and hands
 * the memory to the oldest waiting task directly, so that the write's next page cannot take it
 * first. A compaction thread never makes Paimon flush: a flush may wait for that very task.
 *
 * <p>The writing thread spills for a task only while the tasks running would hold at most half the
 * budget with it, or none runs: past that a task waits for the memory a running one gives back. So
 * tasks side by side (task-threads -1, one per bucket) cannot squeeze the write buffers into
 * spilling a small run at every write call; with no task running one always gets room, so a task
 * the writer waits for always starts.
 *
 * <p><b>Thread-safety:</b> thread-safe; {@link #acquire} runs on compaction threads, {@link
 * #serveWaiting} on the writing thread (or any thread holding the write's call lock).
 */
public final class CompactionAdmission {

    private final MemoryBudget budget;
    private final LongSupplier releaseCached;
    private final ToLongFunction<Object> bytesOfTask;
    private final LongAdder waits = new LongAdder();
    /** Tasks waiting for memory, oldest first. Guarded by this. */
    private final Deque<Request> waiting = new ArrayDeque<>();
    /** {@code waiting.size()}, for the writing thread's check without the monitor. Written under this. */
    private volatile int waitingCount;
    /** Bytes the running tasks hold. Guarded by this. */
    private long heldBytes;

    /**
     * @param perTaskBytes one task's working memory, for every task
     * @param releaseCached gives the write's cached pages back, returning the bytes freed. Only that:
     *     a waiting task must never make Paimon flush, since a flush may wait for this very task
     */
    public CompactionAdmission(MemoryBudget budget, long perTaskBytes, LongSupplier releaseCached) {
        this(budget, task -> perTaskBytes, releaseCached);
        if (perTaskBytes < 0) {
            throw new IllegalArgumentException("a compaction task's memory must not be negative: " + perTaskBytes);
        }
    }

    /**
     * @param bytesOfTask the working memory of the task given (Paimon's {@code Callable}), taken as
     *     it answers, also above what the write keeps room for; called on the compaction thread
     *     before the task runs, and what it throws (a task that can never be given its memory)
     *     fails the task
     * @param releaseCached as above
     */
    public CompactionAdmission(MemoryBudget budget, ToLongFunction<Object> bytesOfTask, LongSupplier releaseCached) {
        this.budget = budget;
        this.releaseCached = releaseCached;
        this.bytesOfTask = bytesOfTask;
    }

    /** A task's hold on its working memory; closing it gives the memory back. */
    public interface Lease extends AutoCloseable {
        @Override
        void close();
    }

    /** One waiting task's reservation and whether the writing thread has filled it. */
    private static final class Request {
        final MemoryReservation reservation;
        final long bytes;
        /** Guarded by the admission. */
        boolean granted;

        Request(MemoryReservation reservation, long bytes) {
            this.reservation = reservation;
            this.bytes = bytes;
        }
    }

    /**
     * Waits until the working memory of {@code task} is held.
     *
     * @param task the task to run (Paimon's {@code Callable}), sized by {@code bytesOfTask}
     * @param check runs between waits; what it throws (cancellation) ends the wait
     */
    Lease acquire(Object task, Runnable check) throws InterruptedException {
        long bytes = Math.max(0, bytesOfTask.applyAsLong(task));
        MemoryReservation reservation = budget.newReservation(ConsumerKind.COMPACTION, "compaction task");
        Request request = null;
        try {
            while (true) {
                check.run();
                synchronized (this) {
                    if (request != null && request.granted) {
                        return lease(reservation, bytes);
                    }
                    if (reservation.tryGrow(bytes)
                            || (releaseCached.getAsLong() > 0 && reservation.tryGrow(bytes))) {
                        if (request != null) {
                            forget(request);
                        }
                        heldBytes += bytes;
                        return lease(reservation, bytes);
                    }
                    if (request == null) {
                        request = new Request(reservation, bytes);
                        waiting.addLast(request);
                        waitingCount = waiting.size();
                        waits.increment();
                    }
                    wait(20);
                }
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            synchronized (this) {
                if (request != null) {
                    forget(request);
                    if (request.granted) {
                        // Granted by the writing thread but never taken up: not held any more.
                        heldBytes -= request.bytes;
                    }
                }
                reservation.close();
            }
            throw e;
        }
    }

    /**
     * Makes room for the tasks waiting for memory, oldest first, and hands it to them. Called by the
     * writing thread inside a write call; when no task waits it costs one volatile read.
     *
     * @param makeRoom frees budget by spilling write buffers; called without this admission's monitor
     * @throws Exception what {@code makeRoom} throws (spill I/O, cancellation)
     */
    public void serveWaiting(Reclaimer makeRoom) throws Exception {
        while (waitingCount > 0) {
            long missing;
            long need;
            synchronized (this) {
                Request oldest = waiting.peekFirst();
                if (oldest == null) {
                    return;
                }
                if (oldest.reservation.tryGrow(oldest.bytes)) {
                    forget(oldest);
                    oldest.granted = true;
                    heldBytes += oldest.bytes;
                    notifyAll();
                    continue;
                }
                if (heldBytes > 0 && heldBytes + oldest.bytes > budget.shareBytes() / 2) {
                    // The running tasks hold half the budget: this one waits for their memory.
                    return;
                }
                missing = oldest.bytes - budget.availableBytes();
                need = oldest.bytes;
            }
            if (makeRoom.reclaim(Math.max(1, missing)) <= 0 && budget.availableBytes() < need) {
                // Nothing more can be spilled now; the task waits for memory given back later.
                return;
            }
        }
    }

    /** A lease on {@code bytes} of {@code reservation}, counted in {@link #heldBytes} until closed. */
    private Lease lease(MemoryReservation reservation, long bytes) {
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                synchronized (this) {
                    heldBytes -= bytes;
                    notifyAll();
                }
                reservation.close();
            }
        };
    }

    /** Tasks waiting for memory now. */
    public int waitingTasks() {
        return waitingCount;
    }

    private void forget(Request request) {
        waiting.remove(request);
        waitingCount = waiting.size();
    }

    /** Times a task had to wait for memory before it could start (exact). */
    public long waits() {
        return waits.sum();
    }
}
