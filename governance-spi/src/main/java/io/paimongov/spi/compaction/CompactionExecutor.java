package io.paimongov.spi.compaction;

import io.paimongov.spi.CompactionThreads;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

/**
 * The compaction executor of one write, handed to Paimon with {@code withCompactExecutor}. Owned by
 * the write: Paimon never shuts it down, the write does when it closes.
 *
 * <p>Built from the engine's {@link CompactionThreads}; this version runs one thread, Paimon's own
 * behaviour (one compaction at a time for the whole write, each bucket serial by Paimon's one
 * in-flight future per bucket). Every task checks cancellation before it starts ({@code
 * beforeStart}) and is counted (queued, running, completed, time).
 *
 * <p><b>Thread-safety:</b> thread-safe. A task that fails {@code beforeStart} completes its
 * future exceptionally, so a thread waiting on it wakes.
 */
public final class CompactionExecutor extends ThreadPoolExecutor {

    private final Runnable beforeStart;
    private final LongConsumer onCompleted;
    private final AtomicInteger running = new AtomicInteger();

    /**
     * @param beforeStart runs on the compaction thread before each task; what it throws fails the
     *     task (the cancellation check)
     * @param onCompleted receives the run time in nanoseconds of each task that completed normally
     */
    public CompactionExecutor(CompactionThreads threads, Runnable beforeStart, LongConsumer onCompleted) {
        super(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), threads.threadFactory());
        this.beforeStart = beforeStart;
        this.onCompleted = onCompleted;
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> task) {
        return new FutureTask<>(() -> runCounted(task));
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable task, T value) {
        return newTaskFor(
                () -> {
                    task.run();
                    return value;
                });
    }

    private <T> T runCounted(Callable<T> task) throws Exception {
        beforeStart.run();
        running.incrementAndGet();
        long start = System.nanoTime();
        try {
            T result = task.call();
            onCompleted.accept(System.nanoTime() - start);
            return result;
        } finally {
            running.decrementAndGet();
        }
    }

    /** Tasks submitted and not yet taken by a thread (a task cancelled while queued counts until then). */
    public int queuedTasks() {
        return getQueue().size();
    }

    /** Tasks running now. */
    public int runningTasks() {
        return running.get();
    }

    /**
     * Interrupts running tasks and cancels queued ones, so every thread waiting on one of their
     * futures wakes. Does not wait; safe from any thread; idempotent.
     */
    public void abort() {
        for (Runnable r : shutdownNow()) {
            if (r instanceof FutureTask<?> f) {
                f.cancel(false);
            }
        }
    }

    /**
     * {@link #abort()}, then waits up to {@code timeoutMillis} for the threads to end.
     *
     * @return whether every thread ended in time
     */
    public boolean stop(long timeoutMillis) {
        abort();
        try {
            return awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
