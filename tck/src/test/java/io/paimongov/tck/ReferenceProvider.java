package io.paimongov.tck;

import io.paimongov.allocator.support.BoundedCounters;
import io.paimongov.allocator.support.EnginePagedAllocator;
import io.paimongov.allocator.support.HeapPagedAllocator;
import io.paimongov.allocator.support.LeakReport;
import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.allocator.support.PagedResources;
import io.paimongov.allocator.support.standalone.ManualStandaloneEngine;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MetricsReporter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;

/**
 * A small correct provider, written against the SPI alone, that the kit's own tests verify; the
 * broken providers in {@link BrokenProviders} each change one thing of it. Its engine is a counter
 * ({@link Engine}) shared by the writes opened with it.
 */
public class ReferenceProvider implements GovernanceProvider {

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        validate(options);
        Engine engine = environment.find(Engine.class).orElseGet(() -> new Engine(options.budgetBytes()));
        return resources(
                allocator(options.pageSize(), options.budgetBytes(), engine),
                SpillLocations.of(options.spillDirs(), options.spillMaxBytes()),
                environment.cancellationOrNever(),
                environment.metricsOrNone());
    }

    /** Rejects every key of its own namespace: it has none (PROV.3). */
    void validate(ProviderOptions options) {
        options.rejectUnknownKeys(name(), List.of());
    }

    PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
        return new Allocator(pageSize, capacity, engine);
    }

    EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
        return new PagedResources(memory, spill, cancel, metrics, compaction());
    }

    /** The engine's compaction threads: daemons, two at most. */
    CompactionThreads compaction() {
        return CompactionThreads.daemons("reference-compaction-", 2);
    }

    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.of(new Standalone(new Engine(budgetBytes), tempDir));
    }

    /** The engine's own memory: a bounded counter. */
    static final class Engine {
        final long capacity;
        final AtomicLong used = new AtomicLong();

        Engine(long capacity) {
            this.capacity = capacity;
        }

        boolean take(long bytes) {
            return BoundedCounters.tryAdd(used, bytes, capacity) >= 0;
        }

        void give(long bytes) {
            used.addAndGet(-bytes);
        }
    }

    /** The engine on its own: the counter, a manual cancel, a metrics sink, its temp space. */
    static final class Standalone extends ManualStandaloneEngine {
        final Engine engine;

        Standalone(Engine engine, Path tempDir) {
            this.engine = engine;
            publish(environmentWith().with(Engine.class, engine).with(Path.class, tempDir));
        }

        @Override
        public long engineUsedBytes() {
            return engine.used.get();
        }
    }

    /**
     * Heap pages and reservations, each taken from the engine as well as from its own capacity; the
     * bookkeeping is {@link PagedAllocator}'s. Its close never throws: a leak shows in the engine's
     * counter, which the kit reads.
     */
    static class Allocator extends HeapPagedAllocator {
        final Engine engine;

        Allocator(int pageSize, long capacity, Engine engine) {
            super("reference", "reference pages", pageSize, capacity, null);
            this.engine = engine;
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            return engine.take(bytes);
        }

        @Override
        protected void unreserveBytes(long bytes) {
            giveBack(bytes);
        }

        void giveBack(long bytes) {
            engine.give(bytes);
        }

        @Override
        protected IllegalStateException closeEngine(LeakReport leak) {
            return null;
        }
    }

    /**
     * An engine kind over the same engine, for broken providers whose fault is in their page calls:
     * pages are the segments themselves, reservations are taken from the engine and given back to
     * it, and its close never throws, as {@link Allocator}'s.
     */
    abstract static class EngineKind extends EnginePagedAllocator<MemorySegment> {
        final Engine engine;

        EngineKind(int pageSize, long capacity, Engine engine) {
            super("reference", "reference pages", pageSize, capacity, null);
            this.engine = engine;
        }

        @Override
        protected MemorySegment segment(MemorySegment page) {
            return page;
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            return engine.take(bytes);
        }

        @Override
        protected void unreserveBytes(long bytes) {
            engine.give(bytes);
        }

        @Override
        protected IllegalStateException closeEngine(LeakReport leak) {
            return null;
        }
    }
}
