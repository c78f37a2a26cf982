package io.paimongov.runtime.write;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.MemorySharing;
import io.paimongov.runtime.internal.cancel.CancellationToken;
import io.paimongov.runtime.internal.compaction.CompactionExecutor;
import io.paimongov.runtime.internal.metrics.WriterMetrics;
import io.paimongov.runtime.internal.spill.GovernedIOManager;
import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.memory.SharedMemory;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Makes the parts of a {@link ResourceContext} and wires them: the engine's resources from the
 * provider (asked for the shared memory's limit when the write joins one), the cancellation token,
 * the memory budget (a member of the shared memory, or of the engine's capacity) and its page pool,
 * the spill scope and its I/O manager, the metrics and the compaction executor. The context then
 * owns them and releases them; this class keeps nothing.
 *
 * <p>Nothing stays acquired when {@link #assemble} throws: each step undoes the ones before it, in
 * the order the context's release would. Runs on the thread that opens the write; stateless.
 */
final class ContextAssembly {

    private ContextAssembly() {}

    /** See {@link ResourceContext#open(String, GovernanceProvider, GovernanceOptions, EngineEnvironment)}. */
    static ResourceContext assemble(
            String name, GovernanceProvider provider, GovernanceOptions options, EngineEnvironment environment) {
        SharedMemory shared = options.memorySharing() == MemorySharing.FAIR
                ? environment.find(SharedMemory.class).orElse(null)
                : null;
        // A member's allocator must let it hold what it borrows: the pool's limit is its ceiling.
        EngineResources engine = provider.open(shared == null
                        ? options.providerOptions()
                        : options.providerOptions(Math.max(shared.limitBytes(), options.budgetBytes())),
                environment);
        try {
            return assemble(name, options, engine, shared);
        } catch (RuntimeException | Error e) {
            try {
                engine.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static ResourceContext assemble(String name, GovernanceOptions options, EngineResources engine, SharedMemory shared) {
        CancellationToken token = new CancellationToken(engine.cancellation());
        MemoryBudget budget;
        try {
            budget = shared == null
                    ? new MemoryBudget(engine.memory())
                    : MemoryBudget.member(engine.memory(), shared, name,
                            Math.min(options.budgetBytes(), engine.memory().capacityBytes()), options.reclaimWaitMillis(),
                            token::isCancelled);
        } catch (RuntimeException | Error e) {
            token.close();
            throw e;
        }
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, token::throwIfCancelled);
        try {
            int sweptScopes = options.sweepOrphans() ? SpillScope.sweepDead(engine.spill()) : 0;
            // Checks the roots only: the scope is made when the write first needs its disk (SPILL.4).
            SpillScope scope = SpillScope.open(engine.spill(), name);
            GovernedIOManager ioManager = new GovernedIOManager(scope, engine.spill().maxBytes(), token::throwIfCancelled);
            // The metrics read the executor, which reports to them: it is set right after both are made.
            AtomicReference<CompactionExecutor> compactionRef = new AtomicReference<>();
            WriterMetrics metrics = new WriterMetrics(sources(budget, pool, ioManager, compactionRef::get));
            CompactionExecutor compaction =
                    new CompactionExecutor(engine.compaction(), token::throwIfCancelled, metrics::recordCompaction);
            compactionRef.set(compaction);
            token.onCancel(metrics::recordCancelled);
            engine.memory().bindRelief(budget::relieve);
            return new ResourceContext(name, options, engine, token, budget, pool, sweptScopes, ioManager, compaction, metrics);
        } catch (RuntimeException | Error e) {
            budget.leavePool();
            token.close();
            throw e;
        }
    }

    /** What the metrics read, each a live source; {@code compaction} is null until the executor is made. */
    private static WriterMetrics.Sources sources(
            MemoryBudget budget, GovernedSegmentPool pool, GovernedIOManager ioManager, Supplier<CompactionExecutor> compaction) {
        return new WriterMetrics.Sources(
                budget::capacityBytes,
                budget::reservedBytes,
                budget::peakBytes,
                budget::shareBytes,
                budget::borrowedBytes,
                budget::peakBorrowedBytes,
                budget::reclaimedFromCount,
                budget::reclaimedFromBytes,
                budget::reclaimedByCount,
                budget::reclaimedByBytes,
                () -> (long) pool.ownedPages() * pool.pageSize(),
                () -> budget.exhaustedCount() + ioManager.refusedCount(),
                ioManager::spillRuns,
                ioManager::spillFiles,
                ioManager::spillBytes,
                ioManager::filesLeft,
                pool::deniedCount,
                () -> compaction.get() == null ? 0 : compaction.get().queuedTasks(),
                () -> compaction.get() == null ? 0 : compaction.get().runningTasks(),
                () -> compaction.get() == null ? 0 : compaction.get().threadBound(),
                () -> compaction.get() == null ? 0 : compaction.get().tracker().peakRunning(),
                () -> compaction.get() == null ? 0 : compaction.get().tracker().bucketOverlaps(),
                () -> compaction.get() == null ? 0 : compaction.get().tracker().inputBytes(),
                () -> compaction.get() == null ? 0 : compaction.get().tracker().outputBytes(),
                () -> compaction.get() == null ? 0 : compaction.get().admissionWaits(),
                () -> compaction.get() == null ? 0 : compaction.get().tracker().firstStartNanos());
    }
}
