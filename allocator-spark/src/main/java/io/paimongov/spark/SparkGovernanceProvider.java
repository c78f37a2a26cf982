package io.paimongov.spark;

import io.paimongov.allocator.support.PagedResources;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.ProviderOptions;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.spark.TaskContext;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;

/**
 * Provider {@code spark}: a write's memory is Spark task memory. Each write is one {@code
 * MemoryConsumer} on the task's {@link TaskMemoryManager}; its pages ({@code byte[]}) and byte
 * reservations are acquired from Spark's execution memory, and Spark asks it to spill when other
 * consumers of the task need memory. Spill files go under Spark's local dirs, the task's kill or
 * failure cancels the write, and the task's metrics get the spilled bytes.
 *
 * <p>What the engine passes in the {@link EngineEnvironment}: the task's {@link TaskContext} (inside
 * a task: {@code TaskContext.get()}), or, outside a task, a {@link TaskMemoryManager} on its own
 * (then a {@link CancellationSignal} and a {@link MetricsReporter} may come along, as for the heap
 * provider); a {@code DiskBlockManager} names the local dirs when {@code SparkEnv} has none; {@link
 * SparkWriteAccumulators}, when the engine registered them for the write's job, get the write's
 * final snapshot.
 *
 * <p>The budget: {@code governance.memory.budget} is the write's capacity in Spark's execution
 * memory; size it within the task's guaranteed share (see docs/allocators/spark.md).
 *
 * <p>Stateless apart from thread and held-bytes counters; thread-safe. {@link #open} may be called
 * from many task threads at once.
 */
public final class SparkGovernanceProvider implements GovernanceProvider {

    public static final String NAME = "spark";

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @throws IllegalArgumentException for any {@code governance.spark.*} key (the provider has no
     *     options of its own, so such a key is a typo), or when {@code governance.memory.budget} is
     *     larger than the executor's unified memory, the most Spark can give one task (PROV.7)
     * @throws IllegalStateException when the environment has neither a {@link TaskContext} nor a
     *     {@link TaskMemoryManager} (the message names {@code TaskContext})
     */
    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        rejectOwnKeys(options);
        TaskContext task = environment.find(TaskContext.class).orElse(null);
        TaskMemoryManager tmm =
                task != null
                        ? task.taskMemoryManager()
                        : environment.find(TaskMemoryManager.class)
                                .orElseGet(() -> environment.require(TaskContext.class, NAME).taskMemoryManager());
        requireBudgetFits(tmm, options.budgetBytes());
        SpillLocations spill = SparkSpillRoots.resolve(options, environment);
        int cpus = task != null ? Math.max(1, task.cpus()) : Runtime.getRuntime().availableProcessors();
        CompactionThreads threads = CompactionThreads.daemons("paimon-gov-spark-compaction-", cpus);
        SparkSegmentAllocator memory = new SparkSegmentAllocator(tmm, options.pageSize(), options.budgetBytes());
        MetricsReporter engineMetrics = environment.metricsOrNone();
        MetricsReporter metrics = new SparkTaskMetricsReporter(
                task, memory, environment.find(SparkWriteAccumulators.class).orElse(null), engineMetrics);
        if (task == null) {
            CancellationSignal cancellation = environment.cancellationOrNever();
            return new PagedResources(memory, spill, cancellation, metrics, threads);
        }
        SparkTaskCancellation cancellation = new SparkTaskCancellation(task);
        TaskLifecycle.bind(task, cancellation, memory);
        return new PagedResources(memory, spill, cancellation, metrics, threads);
    }

    /**
     * A {@link TaskMemoryManager} over a {@code UnifiedMemoryManager} whose execution memory is
     * {@code budgetBytes}, local dirs under {@code tempDir}, a manual cancel and a metrics sink.
     */
    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.of(new SparkStandaloneEngine(budgetBytes, tempDir));
    }

    /**
     * Bytes every open write of this provider in this JVM holds from Spark now (exact): 0 once all
     * writes closed or their tasks ended. A value that stays above 0 with no write running is a leak.
     */
    public static long heldBytes() {
        return SparkSegmentAllocator.HELD.sum();
    }

    /**
     * PROV.7: the write's pages are on-heap execution memory, and one task can get at most the
     * unified memory manager's {@code maxHeapMemory} (all of it, when no other task runs and storage
     * is evicted). Read from the task's memory manager, a private field of Spark's {@code
     * TaskMemoryManager}; a manager of another kind, or a Spark without the field, is not checked.
     */
    private static void requireBudgetFits(TaskMemoryManager tmm, long budget) {
        long max = maxHeapMemory(tmm);
        if (max >= 0 && budget > max) {
            throw new IllegalArgumentException(
                    "'governance.memory.budget' = " + budget + " bytes is larger than Spark can give a task: the executor's"
                            + " unified memory (spark.memory.fraction of the heap) is " + max + " bytes; lower"
                            + " 'governance.memory.budget' or raise spark.executor.memory or spark.memory.fraction");
        }
    }

    private static long maxHeapMemory(TaskMemoryManager tmm) {
        try {
            Field field = TaskMemoryManager.class.getDeclaredField("memoryManager");
            field.setAccessible(true);
            return field.get(tmm) instanceof UnifiedMemoryManager unified ? unified.maxHeapMemory() : -1;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    private static void rejectOwnKeys(ProviderOptions options) {
        options.providerKeys().keySet().stream()
                .filter(k -> k.startsWith("governance." + NAME + "."))
                .findFirst()
                .ifPresent(k -> {
                    throw new IllegalArgumentException(
                            "unknown option '" + k + "': the spark provider has no options of its own; see governance.memory.*"
                                    + " for the budget and page size; memory comes from the task's TaskMemoryManager");
                });
    }
}
