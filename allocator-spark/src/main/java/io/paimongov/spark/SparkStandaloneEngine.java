package io.paimongov.spark;

import io.paimongov.allocator.support.standalone.ManualStandaloneEngine;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskContextImpl;
import org.apache.spark.TaskKilledException;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.storage.DiskBlockManager;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import scala.Option;

/**
 * Spark's task without a cluster: a {@link TaskContextImpl} over a {@link TaskMemoryManager} of a
 * {@link UnifiedMemoryManager} of {@code maxHeapMemory = budget} with no protected storage region
 * and one core, so the one task may take exactly the budget as execution memory, with its own
 * {@link TaskMetrics}; a {@link DiskBlockManager} whose local dirs are under the temp dir. The
 * provider is given the {@link TaskContext}, as inside a task, so it takes the same paths as in a
 * job: memory from the task's manager, cancellation from the task ({@code SparkTaskCancellation},
 * {@code TaskLifecycle}) and metrics into the task's metrics ({@code SparkTaskMetricsReporter}).
 * {@link #engineUsedBytes()} is the task's execution memory as Spark counts it ({@link
 * TaskMemoryManager#getMemoryConsumptionForThisTask()}).
 *
 * <p>Cancel. {@link #cancel} does what Spark does to a killed task: {@code Task.kill} marks the
 * context interrupted with the reason ({@link TaskContextImpl#markInterrupted}), which the
 * provider polls, and the task's body then unwinds with a {@link TaskKilledException}, which marks
 * the task failed ({@link TaskContextImpl#markTaskFailed}) and runs its failure listeners, the
 * provider's push. Not done: interrupting the task's thread (the kit's writing thread is not a
 * task thread Spark knows).
 *
 * <p>Metrics. The provider publishes two numbers to Spark: the task metrics' {@code
 * diskBytesSpilled} (the snapshot's {@code spillBytes}) and {@code memoryBytesSpilled} (bytes given
 * back when Spark asked), plus one log line with the whole snapshot. Spark has no place for the
 * other fields of a snapshot, so {@link #reportedMetrics()} is the snapshot the provider passed to
 * the engine's sink with {@code spillBytes} read back from Spark's task metrics (what they gained
 * since the writes closed before it): a provider that does not publish its spill to Spark shows
 * a wrong {@code spillBytes} there.
 *
 * <p>Thread-safe. {@link #close()} completes the task (its completion listeners run), frees
 * whatever the task still holds and deletes the local dirs; idempotent.
 */
final class SparkStandaloneEngine extends ManualStandaloneEngine {

    /** The kind {@link #registrations()} counts the task's completion and failure listeners under. */
    static final String TASK_LISTENERS = "task listeners";

    private static final AtomicLong TASK_IDS = new AtomicLong();

    private final TaskMemoryManager tmm;
    private final CountingTask task;
    private final DiskBlockManager disks;
    private final Sink sink = new Sink();
    private boolean closed;

    SparkStandaloneEngine(long budgetBytes, Path tempDir) {
        SparkConf conf = new SparkConf(false).set("spark.local.dir", tempDir.toString());
        long taskId = TASK_IDS.incrementAndGet();
        this.tmm = new TaskMemoryManager(new UnifiedMemoryManager(conf, budgetBytes, 0, 1), taskId);
        this.task = new CountingTask((int) taskId, taskId, tmm);
        this.disks = new DiskBlockManager(conf, true, false);
        publish(environmentWith()
                .with(TaskContext.class, task)
                // The provider takes the task's; tests that act as another consumer of the task find it here.
                .with(TaskMemoryManager.class, tmm)
                .with(MetricsReporter.class, sink)
                .with(DiskBlockManager.class, disks));
    }

    @Override
    public long engineUsedBytes() {
        return tmm.getMemoryConsumptionForThisTask();
    }

    /** Spark's kill: the context is marked interrupted, then the task fails with {@link TaskKilledException}. */
    @Override
    public synchronized boolean cancel(String reason) {
        if (closed) {
            return false;
        }
        task.markInterrupted(reason);
        task.markTaskFailed(new TaskKilledException(reason));
        return true;
    }

    @Override
    public Optional<MetricsSnapshot> reportedMetrics() {
        return sink.last(task.taskMetrics().diskBytesSpilled());
    }

    /**
     * The task's completion and failure listeners ({@code task listeners}: Spark keeps every one
     * until the task ends, it has no way to remove one) and the writes open in the engine's sink
     * ({@code metric sources}): what writes registered with this engine (RES.5).
     */
    @Override
    public Optional<Map<String, Integer>> registrations() {
        return Optional.of(Map.of(TASK_LISTENERS, task.listeners.get(), METRIC_SOURCES, sink.openWrites()));
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            task.markTaskCompleted(Option.empty());
        }
        tmm.cleanUpAllAllocatedMemory();
        disks.stop();
    }

    /**
     * The engine's sink: the last final snapshot, and the spill bytes of the writes closed before it
     * (Spark's counter is the task's, summed over its writes).
     */
    private static final class Sink implements MetricsReporter {
        private MetricsSnapshot last;
        private long spilledBefore;
        private long spilledWithLast;
        private int open;

        @Override
        public synchronized void writeClosed(String writeName, MetricsSnapshot snapshot) {
            spilledBefore = spilledWithLast;
            spilledWithLast += snapshot.spillBytes();
            last = snapshot;
            open--;
        }

        @Override
        public synchronized void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
            open++;
        }

        /** Writes opened and not yet closed. */
        synchronized int openWrites() {
            return open;
        }

        synchronized Optional<MetricsSnapshot> last(long sparkDiskBytesSpilled) {
            return Optional.ofNullable(last).map(s -> Snapshots.withSpillBytes(s, sparkDiskBytesSpilled - spilledBefore));
        }
    }

    /** Spark's task context as a task has it, counting the listeners registered with it. */
    private static final class CountingTask extends TaskContextImpl {
        final AtomicInteger listeners = new AtomicInteger();

        CountingTask(int partition, long taskId, TaskMemoryManager tmm) {
            super(0, 0, partition, taskId, 0, 1, tmm, new Properties(), null, new TaskMetrics(), 1,
                    scala.collection.immutable.Map$.MODULE$.empty());
        }

        @Override
        public TaskContextImpl addTaskCompletionListener(TaskCompletionListener listener) {
            listeners.incrementAndGet();
            return super.addTaskCompletionListener(listener);
        }

        @Override
        public TaskContextImpl addTaskFailureListener(TaskFailureListener listener) {
            listeners.incrementAndGet();
            return super.addTaskFailureListener(listener);
        }
    }
}
