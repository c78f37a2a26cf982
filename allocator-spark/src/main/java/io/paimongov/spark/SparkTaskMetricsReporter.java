package io.paimongov.spark;

import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.function.Supplier;
import org.apache.spark.TaskContext;
import org.apache.spark.executor.TaskMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a write's metrics where a Spark user reads them. At {@link #writeClosed}: the task's metrics
 * get {@code diskBytesSpilled} += the bytes the write put into spill files ({@link
 * MetricsSnapshot#spillBytes()}, exact) and {@code memoryBytesSpilled} += the bytes this write gave
 * back to Spark when Spark asked it to spill (exact), so the stage page and {@code
 * SparkListenerTaskEnd} show them; and one executor log line (INFO, logger {@code
 * io.paimongov.spark.SparkTaskMetricsReporter}) carries the whole snapshot. The task's {@code
 * peakExecutionMemory} += the write's peak accounted memory ({@link
 * MetricsSnapshot#peakReservedBytes()}), as Spark's own sorters and aggregations report theirs, so
 * the write shows in the stage page's "Peak Execution Memory"; Spark 4's {@code
 * peakOnHeapExecutionMemory} needs nothing here, the task's memory manager tracks it. When the
 * environment carries {@link SparkWriteAccumulators}, the whole final snapshot is added to them too
 * (once per write, as {@code writeClosed} is called once). The engine's own reporter, if the
 * environment has one, gets every call too.
 *
 * <p><b>Thread-safety:</b> called on the opening and the cleanup thread; Spark's task metrics
 * accumulators are thread-safe. The cleanup may run on the runtime's cancel thread, so the task is
 * the one captured at open, not {@code TaskContext.get()}. Never throws (the runtime logs it anyway).
 */
final class SparkTaskMetricsReporter implements MetricsReporter {

    private static final Logger LOG = LoggerFactory.getLogger(SparkTaskMetricsReporter.class);

    private final TaskContext task;
    private final SparkSegmentAllocator memory;
    private final SparkWriteAccumulators accumulators;
    private final MetricsReporter engine;

    /**
     * @param task null when the write runs outside a task (a standalone TaskMemoryManager)
     * @param accumulators null when the environment carries none
     */
    SparkTaskMetricsReporter(
            TaskContext task, SparkSegmentAllocator memory, SparkWriteAccumulators accumulators, MetricsReporter engine) {
        this.task = task;
        this.memory = memory;
        this.accumulators = accumulators;
        this.engine = engine;
    }

    @Override
    public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
        engine.writeOpened(writeName, live);
    }

    @Override
    public void writeClosed(String writeName, MetricsSnapshot last) {
        if (task != null) {
            TaskMetrics metrics = task.taskMetrics();
            metrics.incDiskBytesSpilled(last.spillBytes());
            metrics.incMemoryBytesSpilled(memory.givenBackBySpill());
            metrics.incPeakExecutionMemory(last.peakReservedBytes());
        }
        if (accumulators != null) {
            accumulators.add(last);
        }
        LOG.info("paimon-governance write '{}'{} closed: {}", writeName,
                task == null ? "" : " (stage " + task.stageId() + ", partition " + task.partitionId() + ", task " + task.taskAttemptId() + ")",
                last);
        engine.writeClosed(writeName, last);
    }
}
