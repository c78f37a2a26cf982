package io.paimongov.heap;

import io.paimongov.allocator.support.HeapLimit;
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
import java.util.Optional;

/**
 * Provider {@code heap}: the process is the engine. Pages are {@code byte[]} from a budget of
 * {@code governance.memory.budget}; spill goes under {@code governance.spill.dirs}. The embedded
 * default.
 *
 * <p>A plain Java service can hand the provider its own engine objects in the {@link
 * EngineEnvironment}: a {@link HeapMemoryPool} (one budget shared by all its writes), a {@link
 * CancellationSignal} (its own cancel, e.g. allocator-support's {@code ManualCancellation}) and a {@link
 * MetricsReporter} (its metric system). Without them each write has a private budget, is cancelled
 * only through its token and reports nowhere but its snapshot.
 *
 * <p>Stateless apart from the process-wide leak counter; thread-safe.
 */
public final class HeapGovernanceProvider implements GovernanceProvider {

    public static final String NAME = "heap";

    /** Leaking closes of this provider's write allocators, process-wide. */
    static final LeakCounter LEAKS = new LeakCounter();

    /**
     * The JVM sets no compaction thread limit of its own: this is a safety cap above any sane
     * setting; governance.compaction.task-threads (and max-threads for -1) decide below it.
     */
    static final int MAX_COMPACTION_THREADS = 64;

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @throws IllegalArgumentException for any {@code governance.heap.*} key: the heap provider has
     *     none of its own, so such a key is a typo; and for a {@code governance.memory.budget}
     *     larger than the heap can give (the maximum heap less the live heap; PROV.7)
     */
    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        options.providerKeys().keySet().stream()
                .filter(k -> k.startsWith("governance." + NAME + "."))
                .findFirst()
                .ifPresent(k -> {
                    throw new IllegalArgumentException(
                            "unknown option '" + k + "': the heap provider has no options of its own; see governance.memory.*");
                });
        HeapLimit.check(options.budgetBytes());
        int pageSize = options.pageSize();
        HeapSegmentAllocator allocator =
                environment
                        .find(HeapMemoryPool.class)
                        .map(pool -> new HeapSegmentAllocator(pageSize, options.budgetBytes(), pool))
                        .orElseGet(() -> new HeapSegmentAllocator(pageSize, options.budgetBytes()));
        return new PagedResources(
                allocator,
                SpillLocations.of(options.spillDirs(), options.spillMaxBytes()),
                environment.cancellationOrNever(),
                environment.metricsOrNone(),
                CompactionThreads.daemons("paimon-gov-compaction-", MAX_COMPACTION_THREADS));
    }

    /** A heap pool of {@code budgetBytes} with a manual cancel and a metrics sink a test can read. */
    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.of(new HeapStandaloneEngine(budgetBytes));
    }

    /**
     * How many write allocators of this process closed while still holding pages or reservations
     * (a leak). Each one also threw {@link IllegalStateException} from {@link
     * EngineResources#close()}. Counts from the start of the process; never decreases.
     */
    public static long leaksDetected() {
        return LEAKS.count();
    }

    /** The bytes those leaking allocators still held when they closed (and then gave back to the pool). */
    public static long leakedBytes() {
        return LEAKS.bytes();
    }
}
