package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.Example;
import net.jqwik.api.Reporter;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-11 to MEM-13: the engine side. The engine's memory is not the budget: it may be smaller than
 * the budget, shared by several writes, or taken by another consumer while a write runs. In each
 * case a refusal must come as the SPI's typed one, nothing refused may stay accounted, and the
 * allocators of one engine together never hold more than the engine has. Each rule reads the
 * engine's own counter, so it needs the provider's standalone engine; without one {@link
 * OptionalRules} skips it with that reason (and the provider does not conform).
 */
interface EngineRules extends LifecycleRules, EdgeRules {

    /** MEM-11's engine: a quarter of the budget. */
    long TIGHT_ENGINE = MEM_BUDGET / 4;
    /** MEM-12's engine, and the budget of each of its writes. */
    long SHARED_ENGINE = 2L << 20;
    int SHARING_WRITES = 3;
    /** The rules that read the provider's own engine; {@link OptionalRules} skips them without one. */
    java.util.Set<Rule> NEED_ENGINE = java.util.EnumSet.of(Rule.MEM_11, Rule.MEM_12, Rule.MEM_13);

    /**
     * On an engine of a quarter of the budget; when {@code open} refuses such a budget (allowed:
     * ALLOC.11), on an engine of the whole budget that another consumer shrinks to a quarter right
     * after the open, so that the body runs for every provider.
     */
    @Example
    @Verifies(Rule.MEM_11)
    default void required_MEM11_anEngineTighterThanTheBudgetRefusesTheTypedWay() {
        try (TckSubject s = subject(MEM_BUDGET, TIGHT_ENGINE)) {
            EngineResources resources = null;
            try {
                resources = s.open();
            } catch (IllegalArgumentException | ResourceExhaustedException e) {
                // Refusing a budget the engine can never hold is allowed, if nothing was taken.
                check(Rule.MEM_11, s.engine.engineUsedBytes() == s.engineStart,
                        "open refused a budget larger than the engine (" + e + ") and left the engine counter at "
                                + s.engine.engineUsedBytes() + "; it started at " + s.engineStart);
            }
            if (resources != null) {
                refusesWhatTheEngineLacks(s, resources, TIGHT_ENGINE, "an engine of " + TIGHT_ENGINE + " bytes");
                s.checkEngineBack(Rule.MEM_11, "every page was released");
                resources.close();
                return;
            }
        }
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            EngineResources other = s.open();
            List<MemorySegment> grabbed = new ArrayList<>();
            long reserved = ShrunkEngineWrite.grab(s, other.memory(), TIGHT_ENGINE, grabbed);
            long held = other.memory().usedBytes();
            check(Rule.MEM_11, held > 0, "another consumer could take nothing from an empty engine of " + MEM_BUDGET + " bytes");
            ShrunkEngineWrite.checkWithinTheEngine(s, resources.memory().usedBytes(), held, Rule.MEM_11);
            refusesWhatTheEngineLacks(s, resources, MEM_BUDGET - held, "an engine of " + MEM_BUDGET + " bytes of which another consumer holds " + held);
            long engine = s.engine.engineUsedBytes();
            check(Rule.MEM_11, engine == s.engineStart + held,
                    "every page was released and the engine counter is at " + engine + "; the other consumer holds " + held
                            + " and the engine started at " + s.engineStart);
            resources.close();
            other.memory().release(grabbed);
            other.memory().release(reserved);
            other.close();
            s.checkEngineBack(Rule.MEM_11, "the other consumer gave back");
        }
    }

    /**
     * MEM-11's body on {@code resources}, whose engine ({@code engine}, described) has {@code room}
     * bytes for it, less than the budget: pages one at a time until refused, the typed way and
     * changing nothing, never more than the room; a refused reservation; a page given back taken
     * again; everything released.
     */
    private static void refusesWhatTheEngineLacks(TckSubject s, EngineResources resources, long room, String engine) {
        SegmentAllocator allocator = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        Throwable refusal = fillUntilRefused(Rule.MEM_11, s, allocator, pages);
        check(Rule.MEM_11, refusal != null,
                "the allocator gave " + pages.size() + " pages of " + allocator.pageSize() + " bytes out of " + engine + " and never refused");
        check(Rule.MEM_11, !pages.isEmpty(), "the allocator refused the first page from " + engine + ": " + refusal);
        long used = allocator.usedBytes();
        check(Rule.MEM_11, used <= room, "the allocator holds " + used + " bytes taken from " + engine + ", which had " + room
                + " for it: its memory does not come from the engine");
        long counter = s.engine.engineUsedBytes();
        boolean reserved = tryReserve(Rule.MEM_11, allocator, TIGHT_ENGINE);
        check(Rule.MEM_11, !reserved, "tryReserve(" + TIGHT_ENGINE + ") was granted with " + used + " bytes taken from " + engine
                + " and a page refused");
        check(Rule.MEM_11, allocator.usedBytes() == used && s.engine.engineUsedBytes() == counter,
                "a refused tryReserve moved usedBytes() from " + used + " to " + allocator.usedBytes()
                        + " and the engine counter from " + counter + " to " + s.engine.engineUsedBytes());
        // What the engine got back is there to take again.
        allocator.release(List.of(pages.remove(pages.size() - 1)));
        List<MemorySegment> again = new ArrayList<>();
        try {
            allocator.allocate(again, 1);
        } catch (RuntimeException e) {
            check(Rule.MEM_11, false, "a page released to the full engine could not be taken again: " + e);
        }
        pages.addAll(again);
        allocator.release(pages);
        check(Rule.MEM_11, allocator.usedBytes() == 0, "usedBytes() is " + allocator.usedBytes() + " after every page was released");
    }

    @Example
    @Verifies(Rule.MEM_12)
    default void required_MEM12_writesSharingAnEngineNeverHoldMoreThanIt() throws Exception {
        try (TckSubject s = subject(SHARED_ENGINE, SHARED_ENGINE)) {
            List<EngineResources> writes = new ArrayList<>();
            List<List<MemorySegment>> held = new ArrayList<>();
            for (int i = 0; i < SHARING_WRITES; i++) {
                writes.add(s.open());
                held.add(new CopyOnWriteArrayList<>());
            }
            List<String> failures = new CopyOnWriteArrayList<>();
            CyclicBarrier start = new CyclicBarrier(SHARING_WRITES);
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < SHARING_WRITES; i++) {
                int w = i;
                workers.add(startWorker("tck-shared-engine-" + w, () -> {
                    start.await(30, TimeUnit.SECONDS);
                    fillUntilRefused(Rule.MEM_12, s, writes.get(w).memory(), held.get(w));
                    return null;
                }, Rule.MEM_12, failures));
            }
            for (Thread t : workers) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                check(Rule.MEM_12, !t.isAlive(), "write " + t.getName() + " was still taking pages from the shared engine after 60 s");
            }
            if (!failures.isEmpty()) {
                throw new AssertionError(failures.get(0)
                        + (failures.size() > 1 ? " (and " + (failures.size() - 1) + " more of the writes failed)" : ""));
            }
            long sum = writes.stream().mapToLong(r -> r.memory().usedBytes()).sum();
            check(Rule.MEM_12, sum <= SHARED_ENGINE,
                    SHARING_WRITES + " writes on one engine of " + SHARED_ENGINE + " bytes hold " + sum + " bytes between them");
            check(Rule.MEM_12, s.provider.engineViolations() == 0,
                    "the engine's counter passed its memory " + s.provider.engineViolations() + " times while " + SHARING_WRITES + " writes shared it");
            List<MemorySegment> all = new ArrayList<>();
            held.forEach(all::addAll);
            int pageSize = writes.get(0).memory().pageSize();
            String shared = MemoryRules.sharing(all, pageSize, 12);
            check(Rule.MEM_12, shared == null, "across the writes sharing the engine: " + shared);
            // A write that closes gives its memory to the engine, where the next write finds it.
            long freed = writes.get(0).memory().usedBytes();
            writes.get(0).memory().release(held.get(0));
            writes.get(0).close();
            SegmentAllocator next = writes.get(1).memory();
            long before = next.usedBytes();
            fillUntilRefused(Rule.MEM_12, s, next, held.get(1));
            long gained = next.usedBytes() - before;
            check(Rule.MEM_12, gained >= freed - pageSize,
                    "a write that held " + freed + " bytes closed, and the next write on the engine could take only " + gained + " bytes more");
            for (int i = 1; i < SHARING_WRITES; i++) {
                writes.get(i).memory().release(held.get(i));
                writes.get(i).close();
            }
            s.checkEngineBack(Rule.MEM_12, "every write sharing it closed");
        }
    }

    /**
     * The most rows one write of MEM-13 has: a write that needed no memory after its engine shrank
     * is made again four times larger, up to this or {@code governance.tck.rows}, whichever is
     * larger. 240000 rows are four times the spilling workload, which spills under this budget.
     */
    int MEM13_LARGEST_ROWS = 240_000;

    @Property
    @Heavy
    @Verifies(Rule.MEM_13)
    @AddLifecycleHook(ConclusiveTries.class)
    default void required_MEM13_aWriteWhoseEngineShrinksCommitsOrFailsTypedAndGivesAllBack(
            @ForAll @IntRange(min = 1, max = 10) int percent, @ForAll @IntRange(min = 0, max = 25) int leavePercent, @ForAll long seed,
            Reporter reporter) throws Exception {
        int rows = settings().rows();
        int largest = Math.max(MEM13_LARGEST_ROWS, rows);
        List<String> writes = new ArrayList<>();
        while (true) {
            ShrunkEngineWrite.Result write = ShrunkEngineWrite.run(this, MEM_BUDGET, rows, percent, leavePercent, seed);
            writes.add(write.outcome());
            if (write.conclusive() || rows >= largest) {
                reporter.publishValue("outcome", String.join("; ", writes));
                if (!write.conclusive()) {
                    ConclusiveTries.inconclusive("writes of up to " + rows + " rows needed no memory after another consumer took the engine's;"
                            + " raise governance.tck.rows (--rows)");
                }
                return;
            }
            rows = (int) Math.min(4L * rows, largest);
        }
    }

    /**
     * Takes pages one at a time until the allocator refuses, checking at every step that a refusal
     * is typed and changes nothing and that the engine stays within its memory; the refusal, or
     * null when the allocator gave as many pages as its capacity holds and one more.
     */
    static Throwable fillUntilRefused(Rule rule, TckSubject s, SegmentAllocator allocator, List<MemorySegment> pages) {
        long asks = allocator.capacityBytes() / allocator.pageSize() + 1;
        long limit = s.engineStart + s.engineBytes;
        for (long i = 0; i < asks; i++) {
            long used = allocator.usedBytes();
            List<MemorySegment> target = new ArrayList<>();
            try {
                allocator.allocate(target, 1);
            } catch (ResourceExhaustedException e) {
                check(rule, target.isEmpty(), "a refused allocate(1) still added " + target.size() + " pages");
                check(rule, allocator.usedBytes() == used,
                        "a refused allocate(1) moved usedBytes() from " + used + " to " + allocator.usedBytes());
                return e;
            } catch (RuntimeException | Error e) {
                check(rule, false, "the engine's refusal came as " + describe(e) + " after " + pages.size()
                        + " pages; allocate must throw ResourceExhaustedException");
            }
            pages.addAll(target);
            long engine = s.engine.engineUsedBytes();
            check(rule, engine <= limit,
                    "after page " + pages.size() + " the engine counter is at " + engine + ", past its memory of " + s.engineBytes
                            + " bytes (it started at " + s.engineStart + ")");
        }
        return null;
    }

    private static boolean tryReserve(Rule rule, SegmentAllocator allocator, long bytes) {
        try {
            return allocator.tryReserve(bytes);
        } catch (RuntimeException | Error e) {
            check(rule, false, "tryReserve(" + bytes + ") against a full engine threw " + describe(e) + " instead of returning false");
            return false;
        }
    }

    private static String describe(Throwable t) {
        return t == null ? "nothing" : ThreadStacks.causes(t);
    }

    /** A kit thread that runs {@code body} and adds what it threw, as a failure of {@code rule}, to {@code failures}. */
    private static Thread startWorker(String name, java.util.concurrent.Callable<Void> body, Rule rule, List<String> failures) {
        Thread t = new Thread(() -> {
            try {
                body.call();
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            } catch (Throwable e) {
                failures.add(rule.fail(name + " threw " + describe(e)));
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
