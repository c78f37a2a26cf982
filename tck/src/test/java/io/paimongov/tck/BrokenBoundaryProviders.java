package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Providers broken at the edges of a write, each the {@link ReferenceProvider} with one thing
 * changed: where its spill goes (SPILL-8), on which thread its metrics are delivered (METRICS-4),
 * what it leaves registered with the engine (CANCEL-6).
 */
public final class BrokenBoundaryProviders {

    private BrokenBoundaryProviders() {}

    /** Spills under {@code java.io.tmpdir}, whatever {@code governance.spill.dirs} says. */
    public static final class SpillToTmpdir extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-spill-to-tmpdir";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            return super.resources(memory, SpillLocations.of(List.of(tmp), spill.maxBytes()), cancel, metrics);
        }
    }

    /**
     * Spills under a directory of its own beside each configured spill directory, made when a write
     * opens. Not in {@link BrokenProviders#FAULTS} (SPILL-8 has {@link SpillToTmpdir});
     * {@code BoundaryRulesTest} checks that SPILL-8 fails it.
     */
    public static final class SpillElsewhere extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-spill-elsewhere";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            List<Path> beside = spill.roots().stream().map(root -> {
                try {
                    return Files.createDirectories(root.resolveSibling(root.getFileName() + "-of-its-own"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
            return super.resources(memory, SpillLocations.of(beside, spill.maxBytes()), cancel, metrics);
        }
    }

    /**
     * Keeps the contents of pages it is given back in a file of its own in {@code java.io.tmpdir}, one
     * per write, made at the first page it hands out, open while the write runs and deleted when it
     * closes: spill the runtime never sees.
     * Not in {@link BrokenProviders#FAULTS}; {@code BoundaryRulesTest} checks that SPILL-8 fails it,
     * which it can tell from another process's file only because this process holds it open.
     */
    public static final class PageFileInTmpdir extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-page-file-in-tmpdir";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private java.nio.channels.FileChannel store;
                private Path file;

                @Override
                public void allocate(List<org.apache.paimon.memory.MemorySegment> target, int pages) {
                    open();
                    super.allocate(target, pages);
                }

                @Override
                public void release(java.util.Collection<org.apache.paimon.memory.MemorySegment> pages) {
                    keep(pages);
                    super.release(pages);
                }

                private synchronized void open() {
                    if (store != null) {
                        return;
                    }
                    try {
                        file = Files.createTempFile(Path.of(System.getProperty("java.io.tmpdir")), "broken-page-store-", ".bin");
                        store = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                private synchronized void keep(java.util.Collection<org.apache.paimon.memory.MemorySegment> pages) {
                    if (store == null) {
                        return;
                    }
                    try {
                        for (org.apache.paimon.memory.MemorySegment page : pages) {
                            store.write(java.nio.ByteBuffer.wrap(page.getHeapMemory()));
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                @Override
                public synchronized void close() {
                    try {
                        if (store != null) {
                            store.close();
                            Files.deleteIfExists(file);
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    super.close();
                }
            };
        }
    }

    /**
     * Keeps a write's metric scope in a thread-local of the thread that opened the write and delivers
     * the final snapshot only where it finds one: a write closed on another thread reports nothing.
     */
    public static final class MetricsOnOpeningThread extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-metrics-on-opening-thread";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            MetricsReporter threadBound = new MetricsReporter() {
                private final ThreadLocal<String> scope = new ThreadLocal<>();

                @Override
                public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
                    scope.set(writeName);
                    metrics.writeOpened(writeName, live);
                }

                @Override
                public void writeClosed(String writeName, MetricsSnapshot last) {
                    if (writeName.equals(scope.get())) {
                        scope.remove();
                        metrics.writeClosed(writeName, last);
                    }
                }
            };
            return super.resources(memory, spill, cancel, threadBound);
        }
    }

    /**
     * Registers the runtime's listener with the engine's cancel and hands back a handle that does
     * not remove it: every write leaves one listener on the engine.
     */
    public static final class KeepsCancelListeners extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-keeps-cancel-listeners";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            CancellationSignal keeping = new CancellationSignal() {
                @Override
                public Optional<String> cancelReason() {
                    return cancel.cancelReason();
                }

                @Override
                public AutoCloseable onCancel(Runnable listener) {
                    cancel.onCancel(listener);
                    return () -> {};
                }
            };
            return super.resources(memory, spill, keeping, metrics);
        }
    }

    /**
     * Not broken: the reference provider on a standalone engine that implements {@link
     * StandaloneEngine} itself and does not count what writes register with it, as an engine written
     * before {@code registrations()} existed; CANCEL-6 is skipped for it.
     */
    public static final class UncountedEngine extends ReferenceProvider {
        @Override
        public String name() {
            return "uncounted-engine";
        }

        @Override
        public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
            Engine engine = new Engine(budgetBytes);
            EngineEnvironment environment = EngineEnvironment.builder().with(Engine.class, engine).with(Path.class, tempDir).build();
            return Optional.of(new StandaloneEngine() {
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
            });
        }
    }
}
