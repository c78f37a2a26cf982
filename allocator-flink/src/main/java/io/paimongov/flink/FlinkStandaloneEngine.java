package io.paimongov.flink;

import io.paimongov.allocator.support.standalone.ManualStandaloneEngine;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.memory.MemoryManager;

/**
 * The Flink provider's engine on its own: a {@link MemoryManager} of the budget, as a slot has, with
 * a {@link FlinkSlot} of the whole budget and one spill root under the temp dir; the task's cancel as
 * the provider sees it in a job ({@link FlinkTaskCancellation}); and Flink's metric system with the
 * writer's metric group ({@link StandaloneMetricSystem}). {@link #engineUsedBytes()} is the manager's
 * own count and {@link #reportedMetrics()} reads Flink's gauges back, so the TCK judges the provider
 * by Flink rather than by the provider's word.
 *
 * <p>Pages have the size a task manager with the same configuration would give them: {@code
 * taskmanager.memory.segment-size} of the Flink {@link Configuration} it is made with (Flink's own
 * default, 32 KiB, when the configuration does not set it). The manager's page size wins over
 * {@code governance.memory.page-size}, and the allocator says so ({@code pageSizeFixedByEngine()}).
 *
 * <p>Cancel. In a job, Flink cancels a task by setting the flag {@code StreamTask.isCanceled()}
 * returns and then closing its operators; the writer operator's close fires the write's {@link
 * FlinkTaskCancellation}, whose poll also reads that flag. {@link #cancel} does both steps in that
 * order on the provider's {@link FlinkTaskCancellation}. The flag itself is a field here: a {@code
 * StreamTask} cannot be made without a task manager's runtime environment (the MiniCluster job of
 * {@code FlinkSinkJobTest} cancels a real one).
 *
 * <p>Thread-safe. {@link #close()} shuts the manager and the metric registry down; idempotent.
 */
final class FlinkStandaloneEngine extends ManualStandaloneEngine {

    /** The kind {@link #registrations()} counts the metrics in Flink's registry under. */
    static final String GAUGES = "gauges";

    private final long budgetBytes;
    private final MemoryManager manager;
    private final AtomicBoolean taskCanceled = new AtomicBoolean();
    private final FlinkTaskCancellation cancellation = new FlinkTaskCancellation(taskCanceled::get);
    private final StandaloneMetricSystem metrics;

    /** An engine with Flink's default configuration: 32 KiB pages. */
    FlinkStandaloneEngine(long budgetBytes, Path tempDir) {
        this(budgetBytes, tempDir, new Configuration());
    }

    /** An engine whose pages are {@code taskmanager.memory.segment-size} of {@code flinkConfig}. */
    FlinkStandaloneEngine(long budgetBytes, Path tempDir, Configuration flinkConfig) {
        this.budgetBytes = budgetBytes;
        this.manager = MemoryManager.create(budgetBytes, pageSize(flinkConfig));
        Path spill;
        try {
            spill = Files.createDirectories(tempDir.resolve("flink-io"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.metrics = new StandaloneMetricSystem(flinkConfig);
        publish(environmentWith()
                .with(MemoryManager.class, manager)
                .with(FlinkSlot.class, new FlinkSlot(budgetBytes, List.of(spill)))
                .with(CancellationSignal.class, cancellation)
                .with(MetricsReporter.class, MetricsReporter.none())
                .with(MetricGroup.class, metrics.writerGroup()));
    }

    /** The page size a task manager of {@code flinkConfig} uses, as Flink reads it. */
    static int pageSize(Configuration flinkConfig) {
        return (int) flinkConfig.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE).getBytes();
    }

    @Override
    public long engineUsedBytes() {
        return budgetBytes - manager.availableMemory();
    }

    /** The task is cancelled, then its writer operator closes unfinished, as in a job. */
    @Override
    public boolean cancel(String reason) {
        taskCanceled.set(true);
        cancellation.cancel(reason);
        return true;
    }

    /** What Flink's metric system holds: the provider's gauges, read back from Flink's registry. */
    @Override
    public Optional<MetricsSnapshot> reportedMetrics() {
        return metrics.lastSnapshot();
    }

    /**
     * The listeners on the task's cancel ({@code cancel listeners}) and the metrics registered in
     * Flink's registry ({@code gauges}): what writes registered with this engine (RES.5).
     */
    @Override
    public Optional<Map<String, Integer>> registrations() {
        return Optional.of(Map.of(CANCEL_LISTENERS, cancellation.listenerCount(), GAUGES, metrics.registeredMetrics()));
    }

    @Override
    public void close() {
        manager.shutdown();
        metrics.close();
    }
}
