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

    @Example
    @Verifies(Rule.MEM_11)
    default void required_MEM11_anEngineTighterThanTheBudgetRefusesTheTypedWay() {
        try (TckSubject s = subject(MEM_BUDGET, TIGHT_ENGINE)) {
            EngineResources resources;
            try {
                resources = s.open();
            } catch (IllegalArgumentException | ResourceExhaustedException e) {
                // Refusing a budget the engine can never hold is allowed, if nothing was taken.
                check(Rule.MEM_11, s.engine.engineUsedBytes() == s.engineStart,
                        "open refused a budget larger than the engine (" + e + ") and left the engine counter at "
                                + s.engine.engineUsedBytes() + "; it started at " + s.engineStart);
                return;
            }
            SegmentAllocator allocator = resources.memory();
            List<MemorySegment> pages = new ArrayList<>();
            Throwable refusal = fillUntilRefused(Rule.MEM_11, s, allocator, pages);
            check(Rule.MEM_11, refusal != null,
                    "the allocator gave " + pages.size() + " pages of " + allocator.pageSize()
                            + " bytes out of an engine of " + TIGHT_ENGINE + " bytes and never refused");
            check(Rule.MEM_11, !pages.isEmpty(), "the allocator refused the first page of an empty engine of " + TIGHT_ENGINE + " bytes: " + refusal);
            long used = allocator.usedBytes();
            long engine = s.engine.engineUsedBytes();
            boolean reserved = tryReserve(Rule.MEM_11, allocator, TIGHT_ENGINE);
            check(Rule.MEM_11, !reserved, "tryReserve(" + TIGHT_ENGINE + ") was granted with " + used + " bytes of an engine of "
                    + TIGHT_ENGINE + " already taken");
            check(Rule.MEM_11, allocator.usedBytes() == used && s.engine.engineUsedBytes() == engine,
                    "a refused tryReserve moved usedBytes() from " + used + " to " + allocator.usedBytes()
                            + " and the engine counter from " + engine + " to " + s.engine.engineUsedBytes());
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
            s.checkEngineBack(Rule.MEM_11, "every page was released");
            resources.close();
        }
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

    @Property
    @Heavy
    @Verifies(Rule.MEM_13)
    default void required_MEM13_aWriteWhoseEngineShrinksCommitsOrFailsTypedAndGivesAllBack(
            @ForAll @IntRange(min = 1, max = 10) int percent, @ForAll @IntRange(min = 0, max = 25) int leavePercent, @ForAll long seed,
            Reporter reporter) throws Exception {
        int rows = settings().rows();
        Workload workload = new Workload(seed, rows, rows, 2, 4, "deduplicate", "avro", 64);
        long budget = MEM_BUDGET;
        try (TckSubject s = subject(budget)) {
            var table = workload.createTable(s.warehouse, "shrinks");
            GovernanceOptions options = s.options(GovernanceOptions.PAGE_SIZE, "16k");
            ResourceContext context = ResourceContext.open("tck-shrinks", s.provider, options, s.environment());
            ObservedProvider.Observed own = s.provider.opened().get(0);
            EngineResources grabber = null;
            List<MemorySegment> grabbed = new ArrayList<>();
            long refusalsAtGrab = 0;
            long grabbedReserved = 0;
            Throwable error = null;
            boolean committed = false;
            int at = Math.max(1, rows * percent / 100);
            // An odd number of bytes: the write's page and reservation sizes rarely use it up exactly.
            long leave = budget * leavePercent / 100 + 4099;
            try (GovernedTableWrite write = GovernedTableWrite.batch(table, context)) {
                int index = 0;
                for (InternalRow row : workload.rowsInOrder()) {
                    write.write(row);
                    if (++index == at) {
                        refusalsAtGrab = own.refusals.get();
                        grabber = s.open();
                        grabbedReserved = grab(s, grabber.memory(), leave, grabbed);
                    }
                }
                PreparedCommit prepared = write.prepareCommit();
                prepared.commit();
                committed = true;
            } catch (Throwable t) {
                error = t;
            }
            reporter.publishValue("outcome", committed ? "committed" : describe(error));
            String when = "the engine shrank at row " + at + " of " + rows + " to " + leave + " bytes free";
            check(Rule.MEM_13, grabber != null, "the write ended before row " + at + ": " + error);
            long grabbedBytes = grabber.memory().usedBytes();
            check(Rule.MEM_13, grabbedBytes > 0, "another consumer could take nothing from the engine at row " + at + " of " + rows);
            check(Rule.MEM_13, s.provider.engineViolations() == 0,
                    when + " and the engine's counter passed its memory " + s.provider.engineViolations() + " times");
            check(Rule.MEM_13, committed || error instanceof ResourceExhaustedException,
                    when + " and the write failed with " + describe(error) + ", not ResourceExhaustedException");
            check(Rule.MEM_13, own.refusals.get() > refusalsAtGrab,
                    when + " (" + grabbedBytes + " bytes taken by another consumer) and the write's allocator never refused it anything afterwards:"
                            + " its memory does not come from the engine");
            if (committed) {
                Map<Long, Workload.Value> content = Workload.read(table);
                check(Rule.MEM_13, Workload.sameContent(content, workload.model()),
                        when + " and the write committed " + content.size() + " rows that differ from the model's " + workload.model().size());
            }
            check(Rule.MEM_13, context.snapshot().reservedBytes() == 0,
                    when + " and the write still has " + context.snapshot().reservedBytes() + " bytes reserved after close: " + context.holders());
            check(Rule.MEM_13, own.usedAfterClose.get() == 0,
                    when + " and the write's allocator says it holds " + own.usedAfterClose.get() + " bytes after its resources closed");
            long engineNow = s.engine.engineUsedBytes();
            check(Rule.MEM_13, engineNow == s.engineStart + grabbedBytes,
                    when + ": after the write closed the engine counter is at " + engineNow + "; the other consumer holds "
                            + grabbedBytes + " and the engine started at " + s.engineStart);
            grabber.memory().release(grabbed);
            grabber.memory().release(grabbedReserved);
            grabber.close();
            s.checkEngineBack(Rule.MEM_13, "everyone gave back");
            try (Stream<java.nio.file.Path> left = Files.list(s.spillRoot)) {
                List<java.nio.file.Path> scopes = left.toList();
                check(Rule.MEM_13, scopes.isEmpty(), when + " and the write left in its spill root: " + scopes);
            }
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

    /**
     * Takes memory for another consumer until {@code leave} bytes of the engine are free: pages
     * while a whole one fits above {@code leave}, then a reservation of the rest (an engine that
     * counts only whole pages may refuse it; then less than a page more stays free); the bytes
     * reserved.
     */
    private static long grab(TckSubject s, SegmentAllocator other, long leave, List<MemorySegment> into) {
        while (free(s) - other.pageSize() >= leave) {
            List<MemorySegment> page = new ArrayList<>();
            try {
                other.allocate(page, 1);
            } catch (ResourceExhaustedException e) {
                return 0;
            }
            into.addAll(page);
        }
        long rest = free(s) - leave;
        return rest > 0 && other.tryReserve(rest) ? rest : 0;
    }

    private static long free(TckSubject s) {
        return s.engineBytes - (s.engine.engineUsedBytes() - s.engineStart);
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
