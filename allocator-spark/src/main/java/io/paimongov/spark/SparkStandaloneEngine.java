package io.paimongov.spark;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.ManualCancellation;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.spi.metrics.LastSnapshotReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Optional;
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
final class SparkStandaloneEngine implements StandaloneEngine {

    private static final AtomicLong TASK_IDS = new AtomicLong();

    private final TaskMemoryManager tmm;
    private final DiskBlockManager disks;
    private final ManualCancellation cancellation = CancellationSignal.manual();
    private final LastSnapshotReporter sink = new LastSnapshotReporter();
    private final EngineEnvironment environment;

    SparkStandaloneEngine(long budgetBytes, Path tempDir) {
        SparkConf conf = new SparkConf(false).set("spark.local.dir", tempDir.toString());
        this.tmm = new TaskMemoryManager(new UnifiedMemoryManager(conf, budgetBytes, 0, 1), TASK_IDS.incrementAndGet());
        this.disks = new DiskBlockManager(conf, true, false);
        this.environment =
                EngineEnvironment.builder()
                        .with(TaskMemoryManager.class, tmm)
                        .with(DiskBlockManager.class, disks)
                        .with(CancellationSignal.class, cancellation)
                        .with(MetricsReporter.class, sink)
                        .build();
    }

    @Override
    public EngineEnvironment environment() {
        return environment;
    }

    @Override
    public long engineUsedBytes() {
        return tmm.getMemoryConsumptionForThisTask();
    }

    @Override
    public boolean cancel(String reason) {
        cancellation.cancel(reason);
        return true;
    }

    @Override
    public Optional<MetricsSnapshot> reportedMetrics() {
        return sink.last();
    }

    @Override
    public synchronized void close() {
        tmm.cleanUpAllAllocatedMemory();
        disks.stop();
    }
}
