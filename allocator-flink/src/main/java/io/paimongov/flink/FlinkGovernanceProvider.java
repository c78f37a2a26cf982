package io.paimongov.flink;

import io.paimongov.allocator.support.LeakCounter;
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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.memory.MemoryManager;

/**
 * Provider {@code flink}: write-buffer pages and estimates from a Flink slot's managed memory
 * ({@link MemoryManager}, off-heap pages wrapped zero-copy as Paimon segments), spill under the task
 * manager's temp directories, cancellation by the task, and every snapshot field as a gauge on
 * the operator's metric group.
 *
 * <p>Engine objects it takes from the {@link EngineEnvironment}: a {@link MemoryManager} (required;
 * without it {@link #open} fails saying what to add), a {@link FlinkSlot} (the write's share of
 * managed memory and the spill roots; without it what the manager has free at open and {@code
 * governance.spill.dirs}), a {@link CancellationSignal}, a Flink {@link MetricGroup} and a {@link
 * MetricsReporter} (each optional). {@code GovernedPaimonSink} supplies all of them.
 *
 * <p>A budget larger than Flink's memory for the write (the slot's share, or the manager's size
 * without a {@link FlinkSlot}) is refused at open with {@link IllegalArgumentException} (PROV.7).
 * Capacity is the smallest of {@code governance.memory.budget} and the slot's share (without a
 * slot, what the manager has free when the write opens). The page
 * size is the manager's ({@code taskmanager.memory.segment-size}, 32 KiB by default): Flink's pages
 * have that size and a Paimon page must be one Flink page, so the manager's page size wins over
 * {@code governance.memory.page-size}.
 *
 * <p>Stateless apart from process-wide counters; thread-safe. {@link #open} may be called from many
 * task threads at once.
 */
public final class FlinkGovernanceProvider implements GovernanceProvider {

    /** Leaking closes of this provider's write allocators, process-wide. */
    static final LeakCounter LEAKS = new LeakCounter();

    public static final String NAME = "flink";

    /**
     * The managed-memory weight {@code GovernedPaimonSink} declares for its writer operator; the
     * provider itself only validates it.
     */
    public static final String MANAGED_MEMORY_WEIGHT = "governance.flink.managed-memory-weight";

    /** The weight declared when {@link #MANAGED_MEMORY_WEIGHT} is not set. */
    public static final int DEFAULT_MANAGED_MEMORY_WEIGHT = 100;

    /** Flink sets no compaction thread limit; governance.compaction.* is the real bound. */
    static final int MAX_COMPACTION_THREADS = 64;

    private static final AtomicInteger WRITES = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @throws IllegalArgumentException for an unknown {@code governance.flink.*} key or a bad {@link
     *     #MANAGED_MEMORY_WEIGHT}, naming the key, or a budget larger than Flink's memory for the
     *     write, naming both sizes
     * @throws IllegalStateException when the environment has no {@link MemoryManager}, or its page
     *     size is not a power of two of at least 4 KiB, or it has nothing for this write
     */
    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        managedMemoryWeight(options);
        MemoryManager manager = environment.require(MemoryManager.class, NAME);
        requireUsablePages(manager.getPageSize());
        Optional<FlinkSlot> slot = environment.find(FlinkSlot.class);
        refuseBudgetLargerThanTheEngine(options.budgetBytes(), slot, manager);
        long share = slot.map(FlinkSlot::managedBytes).orElseGet(manager::availableMemory);
        long capacity = Math.min(options.budgetBytes(), share);
        if (capacity < manager.getPageSize()) {
            throw new IllegalStateException(
                    "provider 'flink' has " + share + " bytes of managed memory for this write, less than one page of "
                            + manager.getPageSize() + " bytes; give the task managers managed memory"
                            + " (taskmanager.memory.managed.size) and declare it for the operator"
                            + " (see docs/allocators/flink.md)");
        }
        List<Path> roots = slot.map(FlinkSlot::spillDirs).orElseGet(options::spillDirs);
        SpillLocations spill = SpillLocations.of(roots, options.spillMaxBytes());
        CancellationSignal cancellation = environment.cancellationOrNever();
        CompactionThreads threads = CompactionThreads.daemons("paimon-gov-flink-compaction-", MAX_COMPACTION_THREADS);
        // Nothing is taken from the manager until the first page or reservation: open acquires nothing.
        FlinkSegmentAllocator memory =
                new FlinkSegmentAllocator(
                        manager, new FlinkSegmentAllocator.WriteOwner("paimon-gov-flink-write-" + WRITES.incrementAndGet()), capacity);
        return new PagedResources(memory, spill, cancellation, reporters(environment), threads);
    }

    /**
     * PROV.7: a budget Flink can never give is refused before anything is taken. The engine's memory
     * is the write's share of the slot's managed memory when the environment has a {@link
     * FlinkSlot}, else the whole memory manager's size (what other consumers hold now is not
     * counted against the budget: they may give it back, and pages the manager refuses later are
     * spilled for, ALLOC.11).
     *
     * @throws IllegalArgumentException naming {@code governance.memory.budget}, the budget and
     *     Flink's memory
     */
    private static void refuseBudgetLargerThanTheEngine(long budget, Optional<FlinkSlot> slot, MemoryManager manager) {
        long engine = slot.map(FlinkSlot::managedBytes).orElseGet(manager::getMemorySize);
        if (budget <= engine) {
            return;
        }
        String what = slot.isPresent()
                ? "the managed memory Flink gives this write (its operator's share of the slot)"
                : "the managed memory of the slot's memory manager";
        String remedy = slot.isPresent()
                ? "give the task managers more managed memory (taskmanager.memory.managed.size) or the writer a larger"
                        + " share (" + MANAGED_MEMORY_WEIGHT + ")"
                : "give the task managers more managed memory (taskmanager.memory.managed.size)";
        throw new IllegalArgumentException("'governance.memory.budget' = " + budget + " bytes is larger than " + what
                + ": " + engine + " bytes; lower 'governance.memory.budget' or " + remedy);
    }

    private static MetricsReporter reporters(EngineEnvironment environment) {
        List<MetricsReporter> reporters = new ArrayList<>(2);
        environment.find(MetricsReporter.class).ifPresent(reporters::add);
        environment.find(MetricGroup.class).map(FlinkMetricGroupReporter::new).ifPresent(reporters::add);
        return reporters.isEmpty() ? MetricsReporter.none() : new AllReporters(List.copyOf(reporters));
    }

    /**
     * A standalone {@link MemoryManager} of {@code budgetBytes} with Flink's default page size
     * ({@code taskmanager.memory.segment-size}, 32 KiB), spill roots under {@code tempDir}, a manual
     * cancel and a metrics sink a test can read.
     */
    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.of(new FlinkStandaloneEngine(budgetBytes, tempDir));
    }

    /**
     * The weight {@code governance.flink.managed-memory-weight} sets, or {@link
     * #DEFAULT_MANAGED_MEMORY_WEIGHT}; rejects every other {@code governance.flink.*} key.
     *
     * @throws IllegalArgumentException naming the key
     */
    public static int managedMemoryWeight(ProviderOptions options) {
        options.providerKeys().keySet().stream()
                .filter(k -> k.startsWith("governance." + NAME + ".") && !k.equals(MANAGED_MEMORY_WEIGHT))
                .findFirst()
                .ifPresent(k -> {
                    throw new IllegalArgumentException(
                            "unknown option '" + k + "': the flink provider's only option is " + MANAGED_MEMORY_WEIGHT
                                    + "; see governance.memory.* for the budget");
                });
        String value = options.raw(MANAGED_MEMORY_WEIGHT).orElse(null);
        if (value == null) {
            return DEFAULT_MANAGED_MEMORY_WEIGHT;
        }
        try {
            int weight = Integer.parseInt(value);
            if (weight >= 1) {
                return weight;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below, which says what is allowed
        }
        throw new IllegalArgumentException("'" + MANAGED_MEMORY_WEIGHT + "' must be a whole number of at least 1: " + value);
    }

    /**
     * How many write allocators of this process closed while still holding managed memory (a
     * leak). Each one also threw {@link IllegalStateException} from {@link EngineResources#close()}.
     * Counts from the start of the process (of this class's loader); never decreases.
     */
    public static long leaksDetected() {
        return LEAKS.count();
    }

    /** The bytes those leaking allocators still held when they closed (and then gave back). */
    public static long leakedBytes() {
        return LEAKS.bytes();
    }

    /** Paimon needs power-of-two pages; the runtime's smallest page is 4 KiB. */
    private static void requireUsablePages(int pageSize) {
        if (pageSize < ProviderOptions.MIN_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
            throw new IllegalStateException(
                    "provider 'flink' needs a memory manager whose page size is a power of two of at least 4096 bytes;"
                            + " it has " + pageSize + " (taskmanager.memory.segment-size)");
        }
    }
}
