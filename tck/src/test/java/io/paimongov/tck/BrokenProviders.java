package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.memory.MemorySegment;

/** Providers broken in one way each; every one must fail the rule that names its fault. */
public final class BrokenProviders {

    private BrokenProviders() {}

    /**
     * What a broken provider must fail: the rule, the contract clause its fault breaks (one of the
     * rule's clauses, LOCK.2 for a hang, or RES.4 for a write's close that throws) and a fragment of the failure message that only its fault gives, found by
     * running it. A timeout, an unrelated exception or another check of the same rule does not
     * give the fragment, so the self-test proves the reason, not only the rule.
     */
    record Fault(Rule rule, String clause, String fragment) {
        Fault {
            java.util.Objects.requireNonNull(rule, "rule");
            // A hang breaks LOCK.2 whatever rule meets it; a time-out's message cites it besides the rule's.
            if (clause == null
                    || !(rule.clauses().contains(clause) || clause.equals(Rule.TIMED_OUT_CLAUSE) || clause.equals(Rule.CLOSE_CLAUSE))) {
                throw new IllegalArgumentException("the clause of a fault of " + rule.id() + " must be one of " + rule.clauses()
                        + " (or " + Rule.TIMED_OUT_CLAUSE + " for a hang, " + Rule.CLOSE_CLAUSE + " for a write's close that throws): " + clause);
            }
            if (fragment == null || fragment.isBlank()) {
                throw new IllegalArgumentException("a fault of " + rule.id() + " needs a fragment of its failure message");
            }
        }
    }

    /** Which rule each broken provider must fail, why, and with what. */
    static final Map<String, Fault> FAULTS =
            Map.ofEntries(
                    Map.entry("broken-over-budget", new Fault(Rule.MEM_1, "ALLOC.6", "accounting passed the capacity")),
                    Map.entry("broken-check-then-act", new Fault(Rule.MEM_2, "ALLOC.6", "granted past the capacity")),
                    Map.entry("broken-double-free",
                            new Fault(Rule.MEM_10, "ALLOC.10", "shares memory with another live page after the releases above")),
                    Map.entry("broken-thread-leak", new Fault(Rule.CANCEL_4, "COMPACT.3", "thread 'broken-housekeeping-")),
                    Map.entry("broken-leaky", new Fault(Rule.MEM_6, "ALLOC.7", "after close the engine's counter is ")),
                    Map.entry("broken-aliasing", new Fault(Rule.MEM_5, "ALLOC.4", "it shares memory with another live page")),
                    Map.entry("broken-partial",
                            new Fault(Rule.MEM_4, "ALLOC.3", "a refused allocate(5 pages) added 2 pages to the target")),
                    Map.entry("broken-spill-leftover",
                            new Fault(Rule.SPILL_1, "SPILL.3", "left in the engine's temp space: [scratch-")),
                    // a write's close that throws fails whichever writing rule meets it first; SPILL-1 is one write
                    Map.entry("broken-throws-at-close", new Fault(Rule.SPILL_1, Rule.CLOSE_CLAUSE,
                            "the write's close threw io.paimongov.spi.CleanupException: cleanup of write 'tck-t' failed in 1 step:")),
                    Map.entry("broken-ignores-cancel",
                            new Fault(Rule.CANCEL_5, "CANCEL.1", "yet the write ended with outcome COMMITTED")),
                    Map.entry("broken-wrong-metrics", new Fault(Rule.METRICS_3, "METRICS.2", "inputRows")),
                    Map.entry("broken-closes-twice", new Fault(Rule.MEM_7, "RES.3", "the second close() threw")),
                    Map.entry("broken-after-close", new Fault(Rule.MEM_8, "ALLOC.8", "allocate() after close gave pages")),
                    // the engine side: BrokenEngineProviders
                    Map.entry("broken-untyped-refusal",
                            new Fault(Rule.MEM_11, "ALLOC.11", "the engine's refusal came as java.lang.IllegalStateException: engine out of memory")),
                    Map.entry("broken-pages-outside-engine",
                            new Fault(Rule.MEM_11, "ALLOC.11", "for it: its memory does not come from the engine")),
                    Map.entry("broken-engine-overcommit", new Fault(Rule.MEM_12, "ALLOC.11", "past its memory of 2097152 bytes")),
                    Map.entry("broken-partial-grant-kept",
                            new Fault(Rule.MEM_13, "ALLOC.11", "after the write closed the engine counter is at")),
                    Map.entry("broken-refusal-keeps-engine-part",
                            new Fault(Rule.MEM_3, "ALLOC.5", "a refused tryReserve moved the engine counter")),
                    // write, discovery and compaction: BrokenWriteProviders, BrokenDiscoveryProviders, BrokenCompactionProviders
                    Map.entry("broken-wipes-live-pages", new Fault(Rule.WRITE_1, "ALLOC.4", "rows that differ from the model's")),
                    Map.entry("broken-zeroes-first-page", new Fault(Rule.WRITE_2, "ALLOC.4", "rows that differ from the model's")),
                    Map.entry("broken-overstates-capacity", new Fault(Rule.WRITE_3, "ALLOC.1", "the allocator says its capacity is")),
                    Map.entry("broken-renames-itself",
                            new Fault(Rule.DISCOVERY_1, "PROV.1", "after it opened a write it says its name is 'broken-renames-itself-")),
                    Map.entry("broken-Mixed-Case", new Fault(Rule.DISCOVERY_2, "PROV.2", "the name 'broken-Mixed-Case' is not lower case")),
                    Map.entry("broken-accepts-unknown-keys",
                            new Fault(Rule.DISCOVERY_3, "PROV.3", "open() accepted the unknown key 'governance.broken-accepts-unknown-keys.no-such-key'")),
                    Map.entry("broken-runs-twice", new Fault(Rule.COMPACT_1, "COMPACT.1", "ran the runnable it was given 2 times")),
                    Map.entry("broken-overstates-threads",
                            new Fault(Rule.COMPACT_2, "COMPACT.2", "was started and has not run the task it was given 30 s later")),
                    // page size and page memory (BrokenPageProviders)
                    Map.entry("broken-ignores-page-size",
                            new Fault(Rule.MEM_9, "ALLOC.1", "pageSize() is 32768 with governance.memory.page-size = 65536, and pageSizeFixedByEngine() is false")),
                    Map.entry("broken-page-size-cache", new Fault(Rule.MEM_9, "ALLOC.1", "a page has 65536 bytes; pageSize() is 16384")),
                    // spill, cancel and metrics: BrokenSpillCancelProviders
                    Map.entry("broken-failure-leak", new Fault(Rule.SPILL_2, "ALLOC.7", "left behind: [the engine's memory counter is at")),
                    Map.entry("broken-spill-unbounded",
                            new Fault(Rule.SPILL_5, "SPILL.2", "bytes on disk; governance.spill.max-bytes is 1048576")),
                    Map.entry("broken-spill-root-missing", new Fault(Rule.SPILL_6, "SPILL.1", "engine-spill is not a writable directory")),
                    Map.entry("broken-spill-root-per-write", new Fault(Rule.SPILL_7, "SPILL.1", "the scope of dead process")),
                    Map.entry("broken-slow-allocate", new Fault(Rule.CANCEL_1, "CANCEL.4", "ms to be seen at the 99th percentile")),
                    Map.entry("broken-foreign-release", new Fault(Rule.CANCEL_3, "CANCEL.5", "bytes when its resources closed")),
                    Map.entry("broken-capacity-slack", new Fault(Rule.METRICS_1, "METRICS.4", "budgetBytes is ")),
                    // a write's edges (BrokenBoundaryProviders): where it spills, its metrics' thread, the engine's registrations
                    Map.entry("broken-spill-to-tmpdir", new Fault(Rule.SPILL_8, "SPILL.8", "in java.io.tmpdir: ")),
                    Map.entry("broken-metrics-on-opening-thread", new Fault(Rule.METRICS_4, "METRICS.5", "the engine's metric system received nothing")),
                    Map.entry("broken-keeps-cancel-listeners", new Fault(Rule.CANCEL_6, "RES.5", "49 more cancel listeners")),
                    // memory at the edges: BrokenEdgeProviders
                    Map.entry("broken-int-budget", new Fault(Rule.MEM_14, "ALLOC.12", "capacityBytes() is -1073741824")),
                    Map.entry("broken-skips-interrupted-release", new Fault(Rule.MEM_15, "ALLOC.13", "on an interrupted thread gave back 0 of")),
                    Map.entry("broken-unlocked-page-set", new Fault(Rule.MEM_16, "ALLOC.14", "a release was lost")),
                    Map.entry("broken-page-cache", new Fault(Rule.MEM_17, "ALLOC.15", "are not charged to the engine")),
                    // governed reads: BrokenReadProviders
                    Map.entry("broken-read-kinds-free",
                            new Fault(Rule.READ_1, "ALLOC.16", "bytes the read holds are not charged to the engine")),
                    Map.entry("broken-drops-read-releases", new Fault(Rule.READ_3, "ALLOC.16", "closed, the engine's counter is at")),
                    Map.entry("broken-loses-output-releases", new Fault(Rule.READ_4, "ALLOC.16", "bytes moved the engine's counter by 0")),
                    // a hang: the runner's time limit reports it (TIMED_OUT), within MEM-4's own limit
                    Map.entry("broken-blocks-forever", new Fault(Rule.MEM_4, Rule.TIMED_OUT_CLAUSE, "did not finish within 60 s (its time limit")));

    /**
     * The providers of {@link #FAULTS} whose fault is a hang: their rule is reported {@link
     * TckReport.Status#TIMED_OUT}, not failed, and the docs' rules table names no hang (a hang fails
     * whatever rule meets it).
     */
    static final java.util.Set<String> HANGS = java.util.Set.of("broken-blocks-forever");

    /**
     * The broken providers whose fault depends on state the provider keeps from one use to the next
     * (a cache it fills once, a name it changes): a kit that let state cross from rule to rule could
     * hide their fault in a full run while the rule alone catches it. {@code BrokenProvidersTest}
     * runs each of them through the whole kit in every build; the others only with {@code
     * governance.tck.selftest.full-runs=all} (docs/tck.md, "The kit proves itself").
     */
    static final java.util.Set<String> CARRIES_STATE = java.util.Set.of("broken-page-size-cache", "broken-renames-itself");

    /** Grants whatever is asked: never refuses a page or a reservation. */
    public static final class OverBudget extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-over-budget";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, Long.MAX_VALUE, new Engine(Long.MAX_VALUE)) {
                @Override
                public long capacityBytes() {
                    return capacity;
                }
            };
        }
    }

    /**
     * Checks the capacity, then takes: two threads that check at the same moment both take, and
     * the allocator passes its capacity. Each step alone is correct (and locked).
     */
    public static final class CheckThenAct extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-check-then-act";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, Long.MAX_VALUE, new Engine(Long.MAX_VALUE)) {
                @Override
                public long capacityBytes() {
                    return capacity;
                }

                @Override
                public boolean tryReserve(long bytes) {
                    return usedBytes() + bytes <= capacity && super.tryReserve(bytes);
                }

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    long bytes = (long) pages * pageSize;
                    if (usedBytes() + bytes > capacity) {
                        throw ResourceExhaustedException.memory("broken-check-then-act", bytes, usedBytes(), capacity);
                    }
                    super.allocate(target, pages);
                }
            };
        }
    }

    /**
     * Blocks in {@code allocate} until the test that used it lets it go ({@link #letGo}), interrupt
     * or not: the hang a kit run must survive. In {@link #FAULTS} with the rule its hang is charged
     * to, MEM-4, where it times out at that rule's own limit; it hangs whatever rule allocates.
     */
    public static final class BlocksForever extends ReferenceProvider {
        /** What a call now waits for; replaced by {@link #letGo}, so that later runs block again. */
        private static volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);

        /** Lets every call blocked so far go (they then refuse), so that the stuck rule threads end. */
        static void letGo() {
            java.util.concurrent.CountDownLatch blocked = gate;
            gate = new java.util.concurrent.CountDownLatch(1);
            blocked.countDown();
        }

        @Override
        public String name() {
            return "broken-blocks-forever";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    java.util.concurrent.CountDownLatch blocked = gate;
                    while (blocked.getCount() > 0) {
                        try {
                            blocked.await();
                        } catch (InterruptedException ignored) {
                            // a hung engine does not answer interrupts either
                        }
                    }
                    throw ResourceExhaustedException.memory("broken-blocks-forever", (long) pages * pageSize, 0, capacity);
                }
            };
        }
    }

    /**
     * Keeps the memory of released pages in a free list for the next allocation, without asking
     * whether the page was live: a page released twice is in the list twice and goes to two owners.
     * Its books are right (the bookkeeping ignores the second release); its memory is not.
     */
    public static final class DoubleFree extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-double-free";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final java.util.Deque<byte[]> free = new java.util.ArrayDeque<>();

                @Override
                public void release(java.util.Collection<MemorySegment> pages) {
                    synchronized (free) {
                        pages.forEach(p -> free.push(p.getHeapMemory()));
                    }
                    super.release(pages);
                }

                @Override
                protected MemorySegment newPage() {
                    synchronized (free) {
                        return MemorySegment.wrap(free.isEmpty() ? new byte[pageSize] : free.pop());
                    }
                }
            };
        }
    }

    /**
     * Starts a housekeeping thread of its own for every write and never stops it: a thread the
     * allocator started is alive after the write closed. Not one made through the engine's
     * compaction factory, which the kit watched before.
     */
    public static final class ThreadLeak extends ReferenceProvider {
        /** Opened after the kit's tests, so that the leaked threads end. */
        static final java.util.concurrent.CountDownLatch RELEASE = new java.util.concurrent.CountDownLatch(1);
        private static final AtomicInteger WRITES = new AtomicInteger();

        @Override
        public String name() {
            return "broken-thread-leak";
        }

        @Override
        public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
            Thread housekeeping = new Thread(() -> {
                try {
                    RELEASE.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "broken-housekeeping-" + WRITES.incrementAndGet());
            housekeeping.setDaemon(true);
            housekeeping.start();
            return super.open(options, environment);
        }
    }

    /** Counts releases in its own books but never gives the memory back to the engine. */
    public static final class Leaky extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-leaky";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                void giveBack(long bytes) {}
            };
        }
    }

    /** Every other page shares its memory with the page before it. */
    public static final class Aliasing extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-aliasing";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private byte[] last;
                private int count;

                @Override
                protected MemorySegment newPage() {
                    if (count++ % 2 == 0 || last == null) {
                        last = new byte[pageSize];
                    }
                    return MemorySegment.wrap(last);
                }
            };
        }
    }

    /** Hands out the pages that fit, then throws: not all-or-nothing. */
    public static final class Partial extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-partial";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    for (int i = 0; i < pages; i++) {
                        super.allocate(target, 1);
                    }
                }
            };
        }
    }

    /** Makes a scratch directory of its own in the engine's temp space per write, and forgets it. */
    public static final class SpillLeftover extends ReferenceProvider {
        private static final AtomicInteger WRITES = new AtomicInteger();

        @Override
        public String name() {
            return "broken-spill-leftover";
        }

        @Override
        public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
            environment.find(Path.class).ifPresent(temp -> {
                try {
                    Path scratch = Files.createDirectories(temp.resolve("scratch-" + WRITES.incrementAndGet()));
                    Files.writeString(scratch.resolve("buffer.tmp"), "spilled and forgotten");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            return super.open(options, environment);
        }
    }

    /** Its engine says it cancels, but the provider never passes the engine's cancel on. */
    public static final class IgnoresCancel extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-ignores-cancel";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            return super.resources(memory, spill, CancellationSignal.never(), metrics);
        }
    }

    /** Tells the engine's metric system one row more than the write took. */
    public static final class WrongMetrics extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-wrong-metrics";
        }

        @Override
        EngineResources resources(PagedAllocator<?> memory, SpillLocations spill, CancellationSignal cancel, MetricsReporter metrics) {
            MetricsReporter skewed =
                    new MetricsReporter() {
                        @Override
                        public void writeClosed(String writeName, MetricsSnapshot s) {
                            metrics.writeClosed(writeName, withOneRowMore(s));
                        }
                    };
            return super.resources(memory, spill, cancel, skewed);
        }
    }

    /** A copy of {@code s} with one input row more, built through the record's components. */
    static MetricsSnapshot withOneRowMore(MetricsSnapshot s) {
        try {
            var components = MetricsSnapshot.class.getRecordComponents();
            Object[] values = new Object[components.length];
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                values[i] = components[i].getAccessor().invoke(s);
                types[i] = components[i].getType();
                if (components[i].getName().equals("inputRows")) {
                    values[i] = (long) values[i] + 1;
                }
            }
            return MetricsSnapshot.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Not broken: a provider with no standalone engine, so the kit observes it through its own
     * allocators and its optional engine rules do not apply.
     */
    public static final class NoEngine extends ReferenceProvider {
        @Override
        public String name() {
            return "no-engine";
        }

        @Override
        public java.util.Optional<io.paimongov.spi.GovernanceProvider.StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
            return java.util.Optional.empty();
        }
    }

    /** Its resources throw when closed a second time. */
    public static final class ClosesTwice extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-closes-twice";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public void close() {
                    if (isClosed()) {
                        throw new IllegalStateException("already closed");
                    }
                    super.close();
                }
            };
        }
    }

    /** Keeps handing out memory after it was closed: its close does nothing. */
    public static final class AfterClose extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-after-close";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public void close() {}
            };
        }
    }
}
