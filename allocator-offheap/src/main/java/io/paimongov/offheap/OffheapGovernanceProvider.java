package io.paimongov.offheap;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Provider {@code offheap}: write-buffer pages in direct memory through Arrow's {@link
 * BufferAllocator} (arrow-memory-netty), wrapped zero-copy as Paimon segments. Each write gets one
 * Arrow child allocator whose limit is {@code governance.memory.budget}; pages and byte reservations
 * both count in it, so Arrow's counters show the whole writer.
 *
 * <p>An engine that already has an Arrow allocator passes it in the {@link EngineEnvironment} under
 * {@code BufferAllocator.class}: each write's child allocator hangs under it, so the engine's limit
 * bounds the writes too (one budget, not two). Without one, children hang under a process-wide
 * {@link RootAllocator} this provider owns, limited to {@link Long#MAX_VALUE} (the JVM's direct
 * memory limit is then the only bound above the writes' budgets) and never closed. Like the heap
 * provider it also takes a {@link CancellationSignal} and a {@link MetricsReporter} from the
 * environment.
 *
 * <p>The JVM must open {@code java.nio} to Arrow ({@code --add-opens=java.base/java.nio=ALL-UNNAMED}
 * on the class path); {@link #open} checks this first and fails with a message naming the flag.
 *
 * <p>Stateless apart from the process-wide root and leak counters; thread-safe. {@link #open} may
 * be called from many threads at once.
 */
public final class OffheapGovernanceProvider implements GovernanceProvider {

    /** Leaking closes of this provider's write allocators, process-wide. */
    static final LeakCounter LEAKS = new LeakCounter();

    public static final String NAME = "offheap";

    /**
     * The JVM sets no thread limit of its own; governance.compaction.task-threads and max-threads
     * are the real bound.
     */
    static final int MAX_COMPACTION_THREADS = 64;

    private static final AtomicInteger WRITES = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @throws IllegalArgumentException for any {@code governance.offheap.*} key (the provider has
     *     none of its own, so such a key is a typo), when the engine's allocator would round a page
     *     of {@code governance.memory.page-size} to another size, or when {@code
     *     governance.memory.budget} is larger than the engine's allocator can ever give (the
     *     smallest limit on its way to the root; PROV.7)
     * @throws IllegalStateException when {@code java.nio} is not open to Arrow (the message names
     *     the flag)
     */
    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        rejectOwnKeys(options);
        NioAccess.requireOpen();
        int pageSize = options.pageSize();
        long budget = options.budgetBytes();
        BufferAllocator parent = environment.find(BufferAllocator.class).orElseGet(ProcessRoot::get);
        requireExactPages(parent, pageSize);
        requireBudgetFits(parent, budget);
        SpillLocations spill = SpillLocations.of(options.spillDirs(), options.spillMaxBytes());
        CancellationSignal cancellation = environment.cancellationOrNever();
        MetricsReporter metrics = environment.metricsOrNone();
        CompactionThreads threads = CompactionThreads.daemons("paimon-gov-offheap-compaction-", MAX_COMPACTION_THREADS);
        // Created last: nothing after it can fail, so a failing open leaves nothing acquired.
        BufferAllocator child = parent.newChildAllocator("paimon-gov-offheap-" + WRITES.incrementAndGet(), 0, budget);
        ArrowSegmentAllocator memory = new ArrowSegmentAllocator(child, pageSize, budget);
        return new PagedResources(memory, spill, cancellation, new NamingReporter(metrics, memory), threads);
    }

    /**
     * A {@link RootAllocator} of {@code budgetBytes} as the engine's allocator, a manual cancel and
     * a metrics sink a test can read.
     */
    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.of(new OffheapStandaloneEngine(budgetBytes));
    }

    /**
     * How many write allocators of this process closed while still holding memory (a leak). Each
     * one also threw {@link IllegalStateException} from {@link EngineResources#close()}. Counts
     * from the start of the process (of this class's loader); never decreases.
     */
    public static long leaksDetected() {
        return LEAKS.count();
    }

    /** The bytes those leaking allocators still held when they closed (and then released). */
    public static long leakedBytes() {
        return LEAKS.bytes();
    }

    private static void rejectOwnKeys(ProviderOptions options) {
        options.providerKeys().keySet().stream()
                .filter(k -> k.startsWith("governance." + NAME + "."))
                .findFirst()
                .ifPresent(k -> {
                    throw new IllegalArgumentException(
                            "unknown option '" + k + "': the offheap provider has no options of its own; see governance.memory.*"
                                    + " for the budget and page size, and pass an engine's Arrow allocator as BufferAllocator.class"
                                    + " in the EngineEnvironment to bound all writes together");
                });
    }

    /**
     * PROV.7: the engine can never give more than the smallest limit between its allocator and the
     * root. Its limit, not its headroom: writes that share an engine compete for its memory, and a
     * page the engine refuses later is spilled for (ALLOC.3).
     */
    private static void requireBudgetFits(BufferAllocator parent, long budget) {
        long limit = Long.MAX_VALUE;
        BufferAllocator limiting = parent;
        for (BufferAllocator a = parent; a != null; a = a.getParentAllocator()) {
            if (a.getLimit() < limit) {
                limit = a.getLimit();
                limiting = a;
            }
        }
        if (budget > limit) {
            throw new IllegalArgumentException(
                    "'governance.memory.budget' = " + budget + " bytes is larger than the engine's Arrow allocator can give: '"
                            + limiting.getName() + "' is limited to " + limit + " bytes; lower 'governance.memory.budget'"
                            + " or raise the allocator's limit");
        }
    }

    /** A rounding policy that enlarges pages would make Arrow count more than the pages' size. */
    private static void requireExactPages(BufferAllocator parent, int pageSize) {
        long rounded = parent.getRoundingPolicy().getRoundedSize(pageSize);
        if (rounded != pageSize) {
            throw new IllegalArgumentException(
                    "'governance.memory.page-size' = " + pageSize + " is rounded to " + rounded
                            + " bytes by the rounding policy of the engine's Arrow allocator '" + parent.getName()
                            + "'; choose a page size it keeps");
        }
    }

    /** The root for engines without an Arrow allocator: made on first use, lives with the process. */
    private static final class ProcessRoot {
        private static final RootAllocator ROOT = new RootAllocator(Long.MAX_VALUE);

        static BufferAllocator get() {
            return ROOT;
        }
    }
}
