package io.paimongov.runtime.write;

import io.paimongov.runtime.Providers;
import io.paimongov.runtime.cancel.CancellationToken;
import io.paimongov.runtime.compaction.CompactionExecutor;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.memory.GovernedSegmentPool;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.runtime.metrics.WriterMetrics;
import io.paimongov.runtime.spill.GovernedIOManager;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resources of one logical write, shared by all its (partition, bucket) writers: the memory
 * budget and its page pool, the spill scope and its I/O manager, the cancellation token, the
 * compaction executor and the metrics. Opened from a provider's {@link EngineResources}; a {@link
 * GovernedTableWrite} takes it over and closes it.
 *
 * <p>Lifetime: {@link #open} -> one {@link GovernedTableWrite} -> {@link #close()}. Closing gives
 * everything back in a safe order (compaction threads stopped, spill scope deleted, pages and
 * reservations returned, engine resources closed) and is idempotent. Pages in use by Paimon are
 * returned only here (cached, unused pages may go back earlier), so the Paimon write must be closed
 * first; {@link GovernedTableWrite} does that.
 *
 * <p>Its public surface reads the write (snapshots, the spill scope's directory, the live
 * reservations) and offers only narrow operations ({@link #cancel}, {@link #newReservation}); the
 * budget, the page pool, the token and the metrics recorder stay with the runtime's write package.
 *
 * <p><b>Thread-safety:</b> the accessors are thread-safe; {@link #cancel} may be called from any
 * thread. {@link #close()} runs on one thread at a time.
 */
public final class ResourceContext implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceContext.class);
    private static final long COMPACTION_STOP_MILLIS = 30_000;

    private final String name;
    private final GovernanceOptions options;
    private final EngineResources engine;
    private final MemoryBudget budget;
    private final GovernedSegmentPool pool;
    private final CancellationToken token;
    private final GovernedIOManager ioManager;
    private final CompactionExecutor compaction;
    private final WriterMetrics metrics;
    private final int sweptScopes;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    private volatile MetricsSnapshot last;

    private ResourceContext(String name, GovernanceOptions options, EngineResources engine) {
        this.name = name;
        this.options = options;
        this.engine = engine;
        this.budget = new MemoryBudget(engine.memory());
        this.token = new CancellationToken(engine.cancellation());
        this.pool = new GovernedSegmentPool(budget, token::throwIfCancelled);
        SpillScope scope = null;
        try {
            this.sweptScopes = options.sweepOrphans() ? SpillScope.sweepDead(engine.spill()) : 0;
            scope = SpillScope.create(engine.spill(), name);
            this.ioManager = new GovernedIOManager(scope, engine.spill().maxBytes(), token::throwIfCancelled);
            this.metrics = new WriterMetrics(sources());
            this.compaction =
                    new CompactionExecutor(engine.compaction(), token::throwIfCancelled, metrics::recordCompaction);
            token.onCancel(metrics::recordCancelled);
            engine.memory().bindRelief(budget::reclaim);
        } catch (RuntimeException | Error e) {
            if (scope != null) {
                scope.delete();
            }
            token.close();
            throw e;
        }
    }

    /**
     * Opens a context with the provider named by {@code governance.provider} (or the only one on
     * the class path).
     *
     * @throws IllegalArgumentException for an unknown provider or bad options, naming the key
     */
    public static ResourceContext open(String name, GovernanceOptions options, EngineEnvironment environment) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        GovernanceProvider provider =
                Providers.load(options.provider().orElse(null), loader == null ? ResourceContext.class.getClassLoader() : loader);
        return open(name, provider, options, environment);
    }

    /** Opens a context with {@code provider}. Nothing stays acquired when this throws. */
    public static ResourceContext open(
            String name, GovernanceProvider provider, GovernanceOptions options, EngineEnvironment environment) {
        EngineResources engine = provider.open(options.providerOptions(), environment);
        ResourceContext context;
        try {
            context = new ResourceContext(name, options, engine);
        } catch (RuntimeException | Error e) {
            try {
                engine.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try {
            engine.metrics().writeOpened(name, context.metrics::snapshot);
        } catch (RuntimeException e) {
            LOG.warn("metrics reporter failed on open of '{}'", name, e);
        }
        return context;
    }

    private WriterMetrics.Sources sources() {
        return new WriterMetrics.Sources(
                budget::capacityBytes,
                budget::reservedBytes,
                budget::peakBytes,
                () -> (long) pool.ownedPages() * pool.pageSize(),
                () -> budget.exhaustedCount() + ioManager.refusedCount(),
                ioManager::spillRuns,
                ioManager::spillFiles,
                ioManager::spillBytes,
                ioManager::filesLeft,
                pool::deniedCount,
                () -> compaction == null ? 0 : compaction.queuedTasks(),
                () -> compaction == null ? 0 : compaction.runningTasks(),
                () -> compaction == null ? 0 : compaction.threadBound(),
                () -> compaction == null ? 0 : compaction.tracker().peakRunning(),
                () -> compaction == null ? 0 : compaction.tracker().bucketOverlaps(),
                () -> compaction == null ? 0 : compaction.tracker().inputBytes(),
                () -> compaction == null ? 0 : compaction.tracker().outputBytes(),
                () -> compaction == null ? 0 : compaction.admissionWaits(),
                () -> compaction == null ? 0 : compaction.tracker().firstStartNanos());
    }

    public String name() {
        return name;
    }

    public GovernanceOptions options() {
        return options;
    }

    /**
     * A new reservation of this write's budget, for memory the engine side of the write uses outside
     * Paimon: it counts against the same budget and the engine's memory. The caller owns it and
     * closes it; one still live when the context closes is closed then, and growing it afterwards
     * throws {@link GovernanceClosedException}. See {@link MemoryReservation} for its contract.
     */
    public MemoryReservation newReservation(String consumer) {
        return budget.newReservation(consumer);
    }

    /** Live reservations that still hold bytes, largest first; empty once everything was given back. */
    public List<Holder> holders() {
        return budget.holders();
    }

    /**
     * Cancels the write from any thread, as the engine's own cancel does: the write learns of it
     * at its next check point, or an idle write is cleaned up on a short-lived thread.
     *
     * @return whether this call cancelled it (false when it already was)
     */
    public boolean cancel(String reason) {
        return token.cancel(reason);
    }

    /** Whether the write was cancelled (by {@link #cancel}, the engine or an interrupt). */
    public boolean isCancelled() {
        return token.isCancelled();
    }

    /** The final snapshot once closed, else a fresh one. */
    public MetricsSnapshot snapshot() {
        MetricsSnapshot done = last;
        return done != null ? done : metrics.snapshot();
    }

    /** The spill scope directory of this write (deleted when the context closes). */
    public Path spillScopeDir() {
        return ioManager.scope().dir();
    }

    /** Spill scopes of dead processes removed when this context opened. */
    public int sweptScopes() {
        return sweptScopes;
    }

    /** What the engine sees as taken by this write right now. */
    public long engineUsedBytes() {
        return engine.memory().usedBytes();
    }

    MemoryBudget budget() {
        return budget;
    }

    CancellationToken token() {
        return token;
    }

    WriterMetrics recorder() {
        return metrics;
    }

    GovernedSegmentPool pool() {
        return pool;
    }

    GovernedIOManager ioManager() {
        return ioManager;
    }

    CompactionExecutor compactionExecutor() {
        return compaction;
    }

    void ensureOpen() {
        if (closing.get()) {
            throw new GovernanceClosedException("resource context '" + name + "' is closed");
        }
    }

    /** Whether {@link #close()} has finished: everything was given back. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops compaction threads, deletes the spill scope, returns every page and reservation and
     * closes the engine resources. Call after the Paimon write is closed. Idempotent.
     *
     * @throws IllegalStateException when the engine reports memory still held after everything was
     *     returned (a leak in the allocator), after all other steps ran
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        if (!compaction.stop(COMPACTION_STOP_MILLIS)) {
            LOG.warn("compaction threads of write '{}' did not stop within {} ms", name, COMPACTION_STOP_MILLIS);
        }
        ioManager.close();
        pool.close();
        budget.closeAll();
        last = metrics.snapshot();
        try {
            engine.metrics().writeClosed(name, last);
        } catch (RuntimeException e) {
            LOG.warn("metrics reporter failed on close of '{}'", name, e);
        }
        token.close();
        try {
            engine.close();
        } finally {
            closed = true;
        }
    }
}
