package io.paimongov.runtime.write;

import io.paimongov.runtime.Providers;
import io.paimongov.runtime.internal.cancel.CancellationToken;
import io.paimongov.runtime.internal.compaction.CompactionExecutor;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.metrics.WriterMetrics;
import io.paimongov.runtime.internal.spill.GovernedIOManager;
import io.paimongov.runtime.memory.SharedMemory;
import io.paimongov.spi.CleanupException;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.disk.IOManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resources of one logical write, shared by all its (partition, bucket) writers: the memory
 * budget and its page pool, the spill scope and its I/O manager, the cancellation token, the
 * compaction executor and the metrics. Opened from a provider's {@link EngineResources}, whose
 * parts {@link ContextAssembly} makes and wires; a {@link GovernedTableWrite} takes it over and
 * closes it. The context owns the parts: it reads them and releases them.
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

    /** Contexts opened and not yet released in this class loader; see {@link #openCount()}. */
    private static final AtomicInteger OPEN = new AtomicInteger();

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

    /** A context of parts {@link ContextAssembly} made; they are its own from now on. */
    ResourceContext(String name, GovernanceOptions options, EngineResources engine, CancellationToken token, MemoryBudget budget,
            GovernedSegmentPool pool, int sweptScopes, GovernedIOManager ioManager, CompactionExecutor compaction,
            WriterMetrics metrics) {
        this.name = name;
        this.options = options;
        this.engine = engine;
        this.token = token;
        this.budget = budget;
        this.pool = pool;
        this.sweptScopes = sweptScopes;
        this.ioManager = ioManager;
        this.compaction = compaction;
        this.metrics = metrics;
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

    /**
     * Opens a context with {@code provider}. Nothing stays acquired when this throws.
     *
     * <p>When {@code environment} holds a {@link SharedMemory} and {@code governance.memory.sharing}
     * is {@code fair}, the write joins it with its budget as its share (the smaller of {@code
     * governance.memory.budget} and what the provider gives it): the provider is asked for the pool's
     * limit as the write's budget, so that its allocator lets the write hold what it borrows, and the
     * write's budget starts at its share and moves as the pool lends and reclaims
     * (docs/memory-sharing.md). The write leaves the pool when the context closes.
     *
     * @throws io.paimongov.spi.ResourceExhaustedException when the shared memory's limit cannot
     *     hold the write's share next to its members'
     */
    public static ResourceContext open(
            String name, GovernanceProvider provider, GovernanceOptions options, EngineEnvironment environment) {
        ResourceContext context = ContextAssembly.assemble(name, provider, options, environment);
        OPEN.incrementAndGet();
        try {
            context.engine.metrics().writeOpened(name, context.metrics::snapshot);
        } catch (RuntimeException e) {
            LOG.warn("metrics reporter failed on open of '{}'", name, e);
        }
        return context;
    }

    /**
     * How many contexts of this class loader were opened and have not finished their release yet
     * ({@link #isClosed()} still false): open writes, plus closes that compaction threads hold up.
     * Exact. For checks that repeated failovers or restarts of an engine job leave no write
     * behind; thread-safe.
     */
    public static int openCount() {
        return OPEN.get();
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
     * throws {@link GovernanceClosedException}. See {@link EngineReservation} for its contract.
     */
    public EngineReservation newReservation(String consumer) {
        return new EngineReservation(budget.newReservation(consumer));
    }

    /**
     * {@link #newReservation(String)} of a kind the engine's allocator is told with each byte
     * (clause ALLOC.16 of docs/spi.md): a governed read's readers are {@link ConsumerKind#READ}.
     */
    public EngineReservation newReservation(ConsumerKind kind, String consumer) {
        return new EngineReservation(budget.newReservation(kind, consumer));
    }

    /**
     * Paimon's I/O manager over this context's spill scope, for Paimon code run in this context
     * besides the write (a governed read's spilled runs): its channels live in the scope, count
     * toward {@code governance.spill.max-bytes} and the spill metrics, and go when the context
     * closes. The context owns it: callers never close it. Thread-safe.
     */
    public IOManager spillIOManager() {
        return ioManager;
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

    /** Why the context was cancelled, once it was (by {@link #cancel} or the engine's signal). */
    public Optional<String> cancelReason() {
        return token.reason();
    }

    /** The final snapshot once closed, else a fresh one. */
    public MetricsSnapshot snapshot() {
        MetricsSnapshot done = last;
        return done != null ? done : metrics.snapshot();
    }

    /**
     * The spill scope directory of this write: made when the write first needs its disk (a spill
     * file, a temp directory for Paimon), so it may not exist yet; before that, where it will be made
     * unless its root refuses then (SPILL.4). Deleted when the context closes.
     */
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

    /**
     * Whether {@link #close()} has finished its release steps (when a compaction thread held it up,
     * only once that thread ended). A step may still have failed: see the snapshot's {@code
     * cleanupFailures}.
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops compaction threads, deletes the spill scope, returns every page and reservation and
     * closes the engine resources. Call after the Paimon write is closed. Idempotent.
     *
     * <p>Every step runs even when an earlier one failed; each failure counts in the snapshot's
     * {@code cleanupFailures} and is a step of the {@link CleanupException} thrown at the end. What
     * a failed step could not give back stays counted where it was (the spill scope's disk bytes,
     * the budget's reserved bytes, the allocator's used bytes). The one exception to "every step
     * runs now": when compaction threads are still running at {@code
     * governance.compaction.stop-timeout}, a running task may still touch the write's pages, spill
     * files and reservations, so none of them is given back yet: they stay accounted (the final
     * snapshot shows them), the close throws, and the rest of the release runs on the last
     * compaction thread as it ends ({@link #isClosed()} turns true then, and the reporter's {@code
     * writeClosed} runs then).
     *
     * @throws CleanupException naming every step that failed, after all steps ran; the engine's
     *     leak check at close (RES.4) is one of them
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        CleanupException.Steps steps = new CleanupException.Steps("write '" + name + "'");
        long stopMillis = options.compactionStopMillis();
        if (!compaction.stop(stopMillis)) {
            int threads = compaction.liveThreads();
            steps.fail("stop compaction threads",
                    threads + " compaction thread(s) still running " + stopMillis + " ms after they were told to stop;"
                            + " the write's " + budget.reservedBytes() + " reserved bytes (" + pool.ownedPages()
                            + " pages) and its spill scope " + spillScopeDir() + " are kept until they end, then given back",
                    null);
            metrics.recordCleanupFailures(1);
            last = metrics.snapshot();
            LOG.warn("{}", steps.toException().getMessage());
            compaction.whenTerminated(this::releaseAfterCompaction);
            throw steps.toException();
        }
        release(steps);
        steps.throwIfFailed();
    }

    /** The rest of a close that compaction threads held up, on the last of them as it ends. */
    private void releaseAfterCompaction() {
        CleanupException.Steps steps = new CleanupException.Steps("write '" + name + "' (after its compaction threads ended)");
        release(steps);
        CleanupException failed = steps.toException();
        if (failed != null) {
            LOG.warn("releasing write '{}' after its compaction threads ended failed", name, failed);
        } else {
            LOG.info("write '{}' released everything after its compaction threads ended", name);
        }
    }

    /** Every release step after the compaction threads ended; each runs whatever the others did. */
    private void release(CleanupException.Steps steps) {
        steps.run("delete the spill scope", ioManager::close);
        steps.run("give the pages back", pool::close);
        budget.closeAll(steps);
        steps.run("leave the shared memory", budget::leavePool);
        metrics.recordCleanupFailures(steps.failures());
        last = metrics.snapshot();
        try {
            engine.metrics().writeClosed(name, last);
        } catch (RuntimeException e) {
            LOG.warn("metrics reporter failed on close of '{}'", name, e);
        }
        steps.run("close the cancellation subscription", token::close);
        int before = steps.failures();
        steps.run("close the engine resources", engine::close);
        if (steps.failures() > before) {
            // After writeClosed, as METRICS.2 orders; the context's own final snapshot counts it.
            metrics.recordCleanupFailures(steps.failures() - before);
            last = metrics.snapshot();
        }
        closed = true;
        OPEN.decrementAndGet();
    }
}
