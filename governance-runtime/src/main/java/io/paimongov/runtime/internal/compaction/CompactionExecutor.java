package io.paimongov.runtime.internal.compaction;

import io.paimongov.runtime.internal.memory.Reclaimer;
import io.paimongov.spi.EngineResources.CompactionThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.apache.paimon.compact.CompactResult;
import org.apache.paimon.io.DataFileMeta;

/**
 * The compaction executor of one write, handed to Paimon with {@code withCompactExecutor}. Owned by
 * the write: Paimon never shuts it down, the write does when it closes.
 *
 * <p>Threads come from the engine's {@link CompactionThreads}. How many run is set once per write
 * ({@link #configure}): {@code 1} one thread (Paimon's own behaviour), {@code N} a pool of N shared
 * by all buckets, {@code -1} one thread per active bucket ({@link #bucketsActive}) up to a bound;
 * never more than the engine allows. Buckets stay serial because Paimon keeps one in-flight task per
 * bucket; the {@link CompactionTracker} watches that and the thread bound.
 *
 * <p>Each task, on its compaction thread: checks cancellation ({@code beforeStart}), then takes its
 * working memory from the {@link CompactionAdmission} (waiting while the budget is short), runs,
 * gives the memory back and is counted. A thread that waits for a task's result (Paimon's writer,
 * on the writing thread) makes room for tasks waiting for memory while it waits, so a writer never
 * waits for a task that waits for the writer's pages.
 *
 * <p><b>Thread-safety:</b> thread-safe. A task that fails {@code beforeStart} completes its future
 * exceptionally, so a thread waiting on it wakes.
 */
public final class CompactionExecutor extends ThreadPoolExecutor {

    private final int engineMaxThreads;
    private final Runnable beforeStart;
    private final LongConsumer onCompleted;
    private final CompactionTracker tracker = new CompactionTracker();
    private final AtomicInteger running = new AtomicInteger();
    /** Time threads spent blocked in {@link AdmittedTask#get()} (System.nanoTime differences). */
    private final LongAdder waitedNanos = new LongAdder();
    private volatile CompactionAdmission admission;
    private volatile Reclaimer makeRoom = Reclaimer.NONE;
    private volatile int setting = 1;
    private volatile long cancelWaitMillis;
    private volatile int bound = 1;
    /** Guarded by this: when {@link #stop} stops waiting (System.nanoTime), 0 before the first stop. */
    private long stopDeadline;
    /** Guarded by this: what runs once every thread has ended ({@link #whenTerminated}). */
    private final List<Runnable> onTerminated = new ArrayList<>();
    /** Guarded by this: {@link #terminated()} ran, every thread has ended. */
    private boolean ended;

    /**
     * @param beforeStart runs on the compaction thread before each task; what it throws fails the
     *     task (the cancellation check)
     * @param onCompleted receives the run time in nanoseconds of each task that completed normally
     */
    public CompactionExecutor(CompactionThreads threads, Runnable beforeStart, LongConsumer onCompleted) {
        super(1, 1, 30L, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads.threadFactory());
        this.engineMaxThreads = threads.maxThreads();
        this.beforeStart = beforeStart;
        this.onCompleted = onCompleted;
    }

    /**
     * Sets the thread setting and the memory admission; called before the first task. A second call
     * before it replaces the first (a write whose lookup caches cannot be split by bucket keeps to
     * one thread).
     *
     * @param taskThreads 1, N above 1, or -1 (one per active bucket up to {@code maxThreads})
     * @param cancelWaitMillis how long a {@code get()} of a cancelled task waits for its body to stop
     * @param makeRoom spills write buffers for a waiting task; run by threads waiting for a task's
     *     result ({@link CompactionAdmission#serveWaiting}), so it must make Paimon flush only on the
     *     thread that holds the write's call lock
     */
    public void configure(int taskThreads, int maxThreads, long cancelWaitMillis, CompactionAdmission admission, Reclaimer makeRoom) {
        this.cancelWaitMillis = cancelWaitMillis;
        this.admission = admission;
        this.makeRoom = makeRoom;
        this.setting = taskThreads;
        this.bound = Math.min(taskThreads == -1 ? maxThreads : taskThreads, engineMaxThreads);
        if (taskThreads != -1) {
            resize(bound);
        }
    }

    /** With {@code -1}: grows the pool to one thread per active bucket, up to the bound. */
    public void bucketsActive(int buckets) {
        if (setting == -1) {
            resize(Math.min(Math.max(1, buckets), bound));
        }
    }

    private synchronized void resize(int threads) {
        if (threads > getMaximumPoolSize()) {
            setMaximumPoolSize(threads);
            setCorePoolSize(threads);
        } else if (threads < getCorePoolSize()) {
            setCorePoolSize(threads);
            setMaximumPoolSize(threads);
        }
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> task) {
        return new AdmittedTask<>(() -> runAdmitted(task));
    }

    /**
     * A task whose waiters make room for tasks waiting for memory (see the class comment), and whose
     * {@code get()} after a cancel returns only once the task's body has stopped (up to the cancel
     * wait): Paimon cancels a bucket's compaction when it closes the bucket's writer and then closes
     * the lookup files and readers the compaction uses, which must not happen under a running task.
     */
    private final class AdmittedTask<T> extends FutureTask<T> {
        /** Set when a thread takes the task; the body runs after it, if the task was not cancelled first. */
        private volatile boolean taken;
        private final CountDownLatch stopped = new CountDownLatch(1);

        AdmittedTask(Callable<T> callable) {
            super(callable);
        }

        @Override
        public void run() {
            taken = true;
            try {
                super.run();
            } finally {
                stopped.countDown();
            }
        }

        @Override
        public T get() throws InterruptedException, ExecutionException {
            try {
                return awaitResult();
            } catch (CancellationException e) {
                awaitStopped();
                throw e;
            }
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            serve();
            try {
                return super.get(timeout, unit);
            } catch (CancellationException e) {
                awaitStopped();
                throw e;
            }
        }

        private T awaitResult() throws InterruptedException, ExecutionException {
            if (isDone()) {
                return super.get();
            }
            long start = System.nanoTime();
            try {
                while (true) {
                    serve();
                    try {
                        return super.get(20, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        // still running or waiting: serve again
                    }
                }
            } finally {
                waitedNanos.add(System.nanoTime() - start);
            }
        }

        /** Waits, up to the cancel wait, for a cancelled task's body to stop, if a thread took it. */
        private void awaitStopped() throws InterruptedException {
            if (taken) {
                stopped.await(cancelWaitMillis, TimeUnit.MILLISECONDS);
            }
        }

        private void serve() throws ExecutionException {
            CompactionAdmission a = admission;
            if (a != null && !isDone()) {
                try {
                    a.serveWaiting(makeRoom);
                } catch (Exception e) {
                    throw new ExecutionException("making room for a compaction task failed", e);
                }
            }
        }
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable task, T value) {
        return newTaskFor(
                () -> {
                    task.run();
                    return value;
                });
    }

    private <T> T runAdmitted(Callable<T> task) throws Exception {
        beforeStart.run();
        CompactionAdmission.Lease lease = admission == null ? () -> {} : admission.acquire(task, beforeStart);
        CompactionTracker.Task tracked = tracker.started();
        running.incrementAndGet();
        long start = System.nanoTime();
        try {
            T result = task.call();
            if (result instanceof CompactResult r) {
                tracker.recordBytes(size(r.before()), size(r.after()));
            }
            onCompleted.accept(System.nanoTime() - start);
            return result;
        } finally {
            running.decrementAndGet();
            tracker.finished(tracked);
            lease.close();
        }
    }

    private static long size(List<DataFileMeta> files) {
        long bytes = 0;
        for (DataFileMeta f : files) {
            bytes += f.fileSize();
        }
        return bytes;
    }

    /** What the running tasks touch, which bucket each works on. */
    public CompactionTracker tracker() {
        return tracker;
    }

    /** The most threads this write may compact on: the setting, bounded by the engine. */
    public int threadBound() {
        return bound;
    }

    /** Tasks submitted and not yet taken by a thread (a task cancelled while queued counts until then). */
    public int queuedTasks() {
        return getQueue().size();
    }

    /**
     * Nanoseconds threads spent waiting in a task future's {@code get()} for a task that had not
     * ended yet: Paimon's writer waiting for a bucket's compaction result, on the writing thread.
     * Exact (wall clock); cumulative. A {@code get()} of a task that has ended adds nothing.
     */
    public long waitedNanos() {
        return waitedNanos.sum();
    }

    /** Tasks running now. */
    public int runningTasks() {
        return running.get();
    }

    /** Times a task waited for memory before it started. */
    public long admissionWaits() {
        CompactionAdmission a = admission;
        return a == null ? 0 : a.waits();
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
     * {@link #abort()}, then waits for the threads to end, up to {@code timeoutMillis} after the
     * first call of this method: a later call waits only for what is left of that deadline, so a
     * release that stops the executor twice (after Paimon's write closed, and when the context
     * closes) waits once.
     *
     * @return whether every thread ended in time
     */
    public boolean stop(long timeoutMillis) {
        abort();
        long deadline;
        synchronized (this) {
            if (stopDeadline == 0) {
                stopDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            }
            deadline = stopDeadline;
        }
        try {
            return awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Compaction threads that have not ended yet (running a task, or about to end). */
    public int liveThreads() {
        return isTerminated() ? 0 : getPoolSize();
    }

    /**
     * Runs {@code action} once every compaction thread has ended: at once on this thread when they
     * already have, else on the last thread as it ends. What {@code action} throws is not caught
     * here, so it must handle its own failures.
     */
    public void whenTerminated(Runnable action) {
        synchronized (this) {
            if (!ended) {
                onTerminated.add(action);
                return;
            }
        }
        action.run();
    }

    @Override
    protected void terminated() {
        super.terminated();
        List<Runnable> actions;
        synchronized (this) {
            ended = true;
            actions = new ArrayList<>(onTerminated);
            onTerminated.clear();
        }
        actions.forEach(Runnable::run);
    }
}
