package io.paimongov.tck;

import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ManualStandaloneEngine;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.spi.SpillLocations;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.runtime.config.GovernanceOptions;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
        options.rejectUnknownKeys(name(), List.of());
        Engine engine = environment.find(Engine.class).orElseGet(() -> new Engine(options.budgetBytes()));
        return resources(
                allocator(options.pageSize(), options.budgetBytes(), engine),
                SpillLocations.of(options.spillDirs(), options.spillMaxBytes()),
                environment.find(CancellationSignal.class).orElse(CancellationSignal.never()),
                environment.find(MetricsReporter.class).orElse(MetricsReporter.none()));
    }

    Allocator allocator(int pageSize, long capacity, Engine engine) {
        return new Allocator(pageSize, capacity, engine);
    }

    EngineResources resources(Allocator memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
        CompactionThreads threads =
                CompactionThreads.of(
                        r -> {
                            Thread t = new Thread(r, "reference-compaction");
                            t.setDaemon(true);
                            return t;
                        },
                        2);
        return new EngineResources() {
            @Override
            public SegmentAllocator memory() {
                return memory;
            }

            @Override
            public SpillLocations spill() {
                return spill;
            }

            @Override
            public CancellationSignal cancellation() {
                return cancel;
            }

            @Override
            public MetricsReporter metrics() {
                return metrics;
            }

            @Override
            public CompactionThreads compaction() {
                return threads;
            }

            @Override
            public void close() {
                memory.close();
            }
        };
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
            while (true) {
                long now = used.get();
                if (now + bytes > capacity) {
                    return false;
                }
                if (used.compareAndSet(now, now + bytes)) {
                    return true;
                }
            }
        }

        void give(long bytes) {
            used.addAndGet(-bytes);
        }
    }

    /** The engine on its own: the counter, a manual cancel, a metrics sink, its temp space. */
    static final class Standalone extends ManualStandaloneEngine {
        final Engine engine;
        final EngineEnvironment environment;

        Standalone(Engine engine, Path tempDir) {
            this.engine = engine;
            this.environment = environmentWith().with(Engine.class, engine).with(Path.class, tempDir).build();
        }

        @Override
        public EngineEnvironment environment() {
            return environment;
        }

        @Override
        public long engineUsedBytes() {
            return engine.used.get();
        }

        @Override
        public void close() {}
    }

    /** Heap pages and reservations, each taken from the engine as well as from its own capacity. */
    static class Allocator implements SegmentAllocator {
        final int pageSize;
        final long capacity;
        final Engine engine;
        final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());
        long used;
        long reserved;
        boolean closed;

        Allocator(int pageSize, long capacity, Engine engine) {
            this.pageSize = pageSize;
            this.capacity = capacity;
            this.engine = engine;
        }

        @Override
        public int pageSize() {
            return pageSize;
        }

        @Override
        public long capacityBytes() {
            return capacity;
        }

        @Override
        public synchronized long usedBytes() {
            return used;
        }

        @Override
        public synchronized void allocate(List<MemorySegment> target, int pages) {
            ensureOpen();
            long bytes = (long) pages * pageSize;
            if (used + bytes > capacity || !engine.take(bytes)) {
                throw new ResourceExhaustedException(
                        ResourceExhaustedException.Resource.MEMORY, "reference pages", bytes, used, capacity, List.of());
            }
            used += bytes;
            for (int i = 0; i < pages; i++) {
                MemorySegment page = newPage();
                live.add(page);
                target.add(page);
            }
        }

        MemorySegment newPage() {
            return MemorySegment.wrap(new byte[pageSize]);
        }

        @Override
        public synchronized void release(Collection<MemorySegment> pages) {
            for (MemorySegment page : List.copyOf(pages)) {
                if (live.remove(page)) {
                    used -= pageSize;
                    giveBack(pageSize);
                }
            }
        }

        void giveBack(long bytes) {
            engine.give(bytes);
        }

        @Override
        public synchronized boolean tryReserve(long bytes) {
            ensureOpen();
            if (used + bytes > capacity || !engine.take(bytes)) {
                return false;
            }
            used += bytes;
            reserved += bytes;
            return true;
        }

        @Override
        public synchronized void release(long bytes) {
            long given = Math.min(bytes, reserved);
            reserved -= given;
            used -= given;
            giveBack(given);
        }

        void ensureOpen() {
            if (closed) {
                throw new GovernanceClosedException("reference allocator is closed");
            }
        }

        synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            giveBack(used);
            used = 0;
            reserved = 0;
            live.clear();
        }
    }
}
