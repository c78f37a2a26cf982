package io.paimongov.tck;

import io.paimongov.allocator.support.LeakReport;
import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.MetricsReporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.memory.MemorySegment;

/**
 * Broken providers of the spill, cancel and metrics rules: each the {@link ReferenceProvider} with
 * one defect an allocator vendor could make through the SPI. {@link BrokenProviders#FAULTS} names
 * the rule each must fail.
 */
public final class BrokenSpillCancelProviders {

    private BrokenSpillCancelProviders() {}

    /**
     * Takes the engine's memory for a page before it makes the page, and when making it fails (here
     * every 20th page, as an engine out of address space would) throws without giving that memory
     * back: a failure path that leaks.
     */
    public static final class FailureLeak extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-failure-leak";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final AtomicInteger pages = new AtomicInteger();

                @Override
                public void allocate(List<MemorySegment> target, int count) {
                    if (pages.incrementAndGet() % 20 == 0) {
                        engine.take((long) count * pageSize);
                        throw new IllegalStateException("the engine could not map a page");
                    }
                    super.allocate(target, count);
                }
            };
        }
    }

    /**
     * Sleeps in every {@code allocate} for twice the kit's cancel bound, without looking at the
     * cancel: a cancelled write waits in it.
     */
    public static final class SlowAllocate extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-slow-allocate";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            long sleep = 2 * TckSettings.fromSystemProperties().cancelBoundMillis();
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public void allocate(List<MemorySegment> target, int count) {
                    try {
                        Thread.sleep(sleep);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.allocate(target, count);
                }
            };
        }
    }

    /**
     * Keeps pages and bytes released from a thread other than the one that opened the allocator in
     * a list of that thread's, given back only at the owner's next allocation: after a cancel
     * released on the cancelling thread, the owner never allocates again and the memory stays held
     * until close.
     */
    public static final class ForeignRelease extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-foreign-release";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            Thread owner = Thread.currentThread();
            return new Allocator(pageSize, capacity, engine) {
                private final List<MemorySegment> pendingPages = new ArrayList<>();
                private long pendingBytes;

                @Override
                public void release(Collection<MemorySegment> pages) {
                    if (Thread.currentThread() != owner) {
                        synchronized (pendingPages) {
                            pendingPages.addAll(pages);
                        }
                        return;
                    }
                    super.release(pages);
                }

                @Override
                public void release(long bytes) {
                    if (Thread.currentThread() != owner) {
                        synchronized (pendingPages) {
                            pendingBytes += bytes;
                        }
                        return;
                    }
                    super.release(bytes);
                }

                @Override
                public void allocate(List<MemorySegment> target, int count) {
                    if (Thread.currentThread() == owner) {
                        List<MemorySegment> pages;
                        long bytes;
                        synchronized (pendingPages) {
                            pages = new ArrayList<>(pendingPages);
                            pendingPages.clear();
                            bytes = pendingBytes;
                            pendingBytes = 0;
                        }
                        super.release(pages);
                        super.release(bytes);
                    }
                    super.allocate(target, count);
                }
            };
        }
    }

    /** Gives the configured spill roots with no byte limit: SpillLocations.maxBytes() ignores governance.spill.max-bytes. */
    public static final class SpillUnbounded extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-spill-unbounded";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            return super.resources(memory, SpillLocations.of(spill.roots(), Long.MAX_VALUE), cancel, metrics);
        }
    }

    /** Names a subdirectory of each configured spill directory as its spill root and never creates it. */
    public static final class SpillRootMissing extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-spill-root-missing";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            List<Path> roots = spill.roots().stream().map(r -> r.resolve("engine-spill")).toList();
            return super.resources(memory, SpillLocations.of(roots, spill.maxBytes()), cancel, metrics);
        }
    }

    /** Makes a fresh spill root per write (under the configured one): a later write never sees an earlier one's scopes. */
    public static final class SpillRootPerWrite extends ReferenceProvider {
        private static final AtomicInteger WRITES = new AtomicInteger();

        @Override
        public String name() {
            return "broken-spill-root-per-write";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            List<Path> roots = new ArrayList<>();
            int write = WRITES.incrementAndGet();
            for (Path root : spill.roots()) {
                try {
                    roots.add(Files.createDirectories(root.resolve("write-" + write)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return super.resources(memory, SpillLocations.of(roots, spill.maxBytes()), cancel, metrics);
        }
    }

    /** Reports a page more capacity than it enforces (a page of slack its engine never grants). */
    public static final class CapacitySlack extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-capacity-slack";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public long capacityBytes() {
                    return capacity + pageSize;
                }
            };
        }
    }

    /**
     * A leak check that reports even when nothing is held: its resources' close throws after it gave
     * everything back (RES.4 says it must not then). Every write's close then fails.
     */
    public static final class ThrowsAtClose extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-throws-at-close";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected IllegalStateException closeEngine(LeakReport leak) {
                    return new IllegalStateException("leak check: closed with " + leak.heldBytes() + " bytes still held (" + leak.pages() + " pages)");
                }
            };
        }
    }
}
