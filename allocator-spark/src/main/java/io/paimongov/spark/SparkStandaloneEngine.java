package io.paimongov.spark;

import io.paimongov.spi.ManualStandaloneEngine;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.storage.DiskBlockManager;

/**
 * Spark's task memory without a cluster: a {@link TaskMemoryManager} over a {@link
 * UnifiedMemoryManager} of {@code maxHeapMemory = budget} with no protected storage region and one
 * core, so the one task may take exactly the budget as execution memory; a {@link DiskBlockManager}
 * whose local dirs are under the temp dir; a manual cancel and a metrics sink. {@link
 * #engineUsedBytes()} is the task's execution memory as Spark counts it ({@link
 * TaskMemoryManager#getMemoryConsumptionForThisTask()}).
 *
 * <p>Thread-safe. {@link #close()} frees whatever the task still holds and deletes the local dirs;
 * idempotent.
 */
final class SparkStandaloneEngine extends ManualStandaloneEngine {

    private static final AtomicLong TASK_IDS = new AtomicLong();

    private final TaskMemoryManager tmm;
    private final DiskBlockManager disks;

    SparkStandaloneEngine(long budgetBytes, Path tempDir) {
        SparkConf conf = new SparkConf(false).set("spark.local.dir", tempDir.toString());
        this.tmm = new TaskMemoryManager(new UnifiedMemoryManager(conf, budgetBytes, 0, 1), TASK_IDS.incrementAndGet());
        this.disks = new DiskBlockManager(conf, true, false);
        publish(environmentWith()
                .with(TaskMemoryManager.class, tmm)
                .with(DiskBlockManager.class, disks));
    }

    @Override
    public long engineUsedBytes() {
        return tmm.getMemoryConsumptionForThisTask();
    }

    @Override
    public synchronized void close() {
        tmm.cleanUpAllAllocatedMemory();
        disks.stop();
    }
}
