package io.paimongov.runtime.internal.compaction;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Watches compaction tasks run: which (partition, bucket) each works on, how many run at once, and
 * whether two tasks of one bucket ever overlap. Paimon keeps each bucket serial (one in-flight task
 * per bucket); this makes that invariant, and the thread bound, observable as metrics.
 *
 * <p>A task's bucket is not visible on the task itself, so it is learned from the first data file
 * the task reads or writes: the file's directory ({@code .../<partition>/bucket-N}) names the
 * bucket. <b>Thread-safety:</b> thread-safe; {@link #fileTouched} is cheap on threads that run no
 * task (one thread-local read).
 */
public final class CompactionTracker {

    private static final ThreadLocal<Task> CURRENT = new ThreadLocal<>();

    /** One running task: its bucket once known. */
    static final class Task {
        volatile String bucket;
    }

    private final Map<Task, Boolean> running = new ConcurrentHashMap<>();
    private final AtomicInteger runningCount = new AtomicInteger();
    private final AtomicInteger peakRunning = new AtomicInteger();
    private final LongAdder overlaps = new LongAdder();
    private final LongAdder inputBytes = new LongAdder();
    private final LongAdder outputBytes = new LongAdder();
    private final AtomicLong firstStartNanos = new AtomicLong();

    Task started() {
        Task task = new Task();
        CURRENT.set(task);
        running.put(task, Boolean.TRUE);
        peakRunning.accumulateAndGet(runningCount.incrementAndGet(), Math::max);
        firstStartNanos.compareAndSet(0, System.nanoTime());
        return task;
    }

    void finished(Task task) {
        running.remove(task);
        runningCount.decrementAndGet();
        CURRENT.remove();
    }

    void recordBytes(long in, long out) {
        inputBytes.add(in);
        outputBytes.add(out);
    }

    /**
     * A data file was opened on this thread: if a compaction task runs here and its bucket is not
     * known yet, the file's directory names it.
     */
    public void fileTouched(String directory) {
        Task task = CURRENT.get();
        if (task == null || task.bucket != null) {
            return;
        }
        synchronized (this) {
            for (Task other : running.keySet()) {
                if (other != task && directory.equals(other.bucket)) {
                    overlaps.increment();
                }
            }
            task.bucket = directory;
        }
    }

    /** Whether the calling thread is running a task of this executor now. */
    public boolean runsTaskHere() {
        Task task = CURRENT.get();
        return task != null && running.containsKey(task);
    }

    /** The most tasks that ran at once (exact). */
    public int peakRunning() {
        return peakRunning.get();
    }

    /** Times a task started on a bucket another running task was working on; 0 in a correct run. */
    public long bucketOverlaps() {
        return overlaps.sum();
    }

    /** Bytes of the files compactions read, per their results (exact). */
    public long inputBytes() {
        return inputBytes.sum();
    }

    /** Bytes of the files compactions wrote, per their results (exact). */
    public long outputBytes() {
        return outputBytes.sum();
    }

    /** When the first task started ({@link System#nanoTime()}), 0 before. */
    public long firstStartNanos() {
        return firstStartNanos.get();
    }
}
