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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.memory.MemorySegment;

/**
 * One write of MEM-13: a real spilling write whose engine another consumer takes down to a few
 * bytes free partway through, judged on what it showed. Whatever the write needed, it must commit
 * the model's table or fail with {@link ResourceExhaustedException} and give everything back.
 * Whether its memory comes from the engine is judged only when the write asked for memory after
 * the grab: a refusal proves the engine answered; holding more than the engine had left for it
 * proves it did not. A write that needed no memory after the grab proves neither: the result is
 * then inconclusive, and the rule writes again with more rows.
 *
 * <p>Runs on the test's thread; not thread-safe.
 */
final class ShrunkEngineWrite {

    /** What one write showed: whether it proved anything about where its memory comes from, and its outcome. */
    record Result(boolean conclusive, String outcome) {}

    private ShrunkEngineWrite() {}

    /**
     * Writes {@code rows} rows of the MEM-13 workload in a fresh subject of {@code budget} bytes on
     * an engine of as much; at {@code percent} % of the rows another consumer takes the engine's
     * free memory down to {@code leavePercent} % of the budget plus 4099 bytes.
     */
    static Result run(TckContext kit, long budget, int rows, int percent, int leavePercent, long seed) throws Exception {
        Workload workload = new Workload(seed, rows, rows, 2, 4, "deduplicate", "avro", 64);
        try (TckSubject s = kit.subject(budget)) {
            var table = workload.createTable(s.warehouse, "shrinks");
            GovernanceOptions options = s.options(GovernanceOptions.PAGE_SIZE, "16k");
            ResourceContext context = ResourceContext.open("tck-shrinks", s.provider, options, s.environment());
            ObservedProvider.Observed own = s.provider.opened().get(0);
            Grab grab = new Grab();
            Throwable error = null;
            Throwable closeError = null;
            boolean committed = false;
            int at = (int) Math.max(1, (long) rows * percent / 100);
            // An odd number of bytes: the write's page and reservation sizes rarely use it up exactly.
            long leave = budget * leavePercent / 100 + 4099;
            GovernedTableWrite write = GovernedTableWrite.batch(table, context);
            try {
                int index = 0;
                for (InternalRow row : workload.rowsInOrder()) {
                    write.write(row);
                    if (++index == at) {
                        grab.refusalsAtGrab = own.refusals.get();
                        grab.grabber = s.open();
                        grab.reserved = grab(s, grab.grabber.memory(), leave, grab.pages);
                        grab.writeAtGrab = own.memory().usedBytes();
                        own.peakUsed.set(grab.writeAtGrab);
                    }
                }
                PreparedCommit prepared = write.prepareCommit();
                prepared.commit();
                committed = true;
            } catch (Throwable t) {
                error = t;
            } finally {
                try {
                    write.close();
                } catch (Throwable t) {
                    closeError = t;
                }
            }
            String when = "the engine shrank at row " + at + " of " + rows + " to " + leave + " bytes free";
            AssertionError closeFailure = closeError == null ? null
                    : new AssertionError(Rule.MEM_13.closeFailed(when + " and the write's close threw " + closeError), closeError);
            boolean wrote = committed;
            Throwable failed = error;
            // The checks first; a close that threw fails the rule after them, or is suppressed in the check that failed.
            return Cleanup.judgeThen(closeFailure, () -> judge(s, context, own, workload, table, grab, at, when, wrote, failed));
        }
    }

    /** What the other consumer took when the engine shrank, and the write's state then. */
    private static final class Grab {
        EngineResources grabber;
        final List<MemorySegment> pages = new ArrayList<>();
        long reserved;
        long refusalsAtGrab;
        long writeAtGrab;
    }

    /** MEM-13's checks of one write that ended ({@code committed}, or failed with {@code error}) after the grab. */
    private static Result judge(TckSubject s, ResourceContext context, ObservedProvider.Observed own, Workload workload,
            org.apache.paimon.table.FileStoreTable table, Grab grab, int at, String when, boolean committed, Throwable error) throws Exception {
        int rows = workload.rows();
        check(Rule.MEM_13, grab.grabber != null, "the write ended before row " + at + ": " + describe(error));
        EngineResources grabber = grab.grabber;
        long grabbedBytes = grabber.memory().usedBytes();
        check(Rule.MEM_13, grabbedBytes > 0, "another consumer could take nothing from the engine at row " + at + " of " + rows);
        checkWithinTheEngine(s, grab.writeAtGrab, grabbedBytes, Rule.MEM_13);
        check(Rule.MEM_13, s.provider.engineViolations() == 0,
                when + " and the engine's counter passed its memory " + s.provider.engineViolations() + " times");
        check(Rule.MEM_13, committed || error instanceof ResourceExhaustedException,
                when + " and the write failed with " + describe(error) + ", not ResourceExhaustedException");
        long leftForTheWrite = s.engineBytes - grabbedBytes;
        check(Rule.MEM_13, own.peakUsed.get() <= leftForTheWrite,
                when + " (" + grabbedBytes + " bytes taken by another consumer) and the write's allocator then held " + own.peakUsed.get()
                        + " bytes, more than the " + leftForTheWrite + " the engine had left for it: its memory does not come from the engine");
        boolean refused = own.refusals.get() > grab.refusalsAtGrab;
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
        grabber.memory().release(grab.pages);
        grabber.memory().release(grab.reserved);
        grabber.close();
        s.checkEngineBack(Rule.MEM_13, "everyone gave back");
        try (Stream<Path> left = Files.list(s.spillRoot)) {
            List<Path> scopes = left.toList();
            check(Rule.MEM_13, scopes.isEmpty(), when + " and the write left in its spill root: " + scopes);
        }
        String outcome = rows + " rows, " + (committed ? "committed" : describe(error)) + ", "
                + (refused ? "refused after the grab" : "no memory asked beyond what was left (inconclusive)");
        return new Result(refused, outcome);
    }

    /**
     * Takes memory for another consumer until {@code leave} bytes of the engine are free: pages
     * while a whole one fits above {@code leave}, then a reservation of the rest (an engine that
     * counts only whole pages may refuse it; then less than a page more stays free); the bytes
     * reserved. It takes at most as many pages as the engine has memory for: an allocator whose
     * pages do not move the engine's counter would otherwise be asked for pages for ever.
     */
    static long grab(TckSubject s, SegmentAllocator other, long leave, List<MemorySegment> into) {
        long most = s.engineBytes / other.pageSize() + 1;
        while (free(s) - other.pageSize() >= leave && into.size() < most) {
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

    /**
     * Fails {@code rule} when two allocators of one engine held more between them ({@code mine} and
     * {@code other} bytes, as each said) than the engine has: it cannot have come from the engine.
     */
    static void checkWithinTheEngine(TckSubject s, long mine, long other, Rule rule) {
        check(rule, mine + other <= s.engineBytes, "a write's allocator (" + mine + " bytes) and another consumer's on its engine ("
                + other + " bytes) held " + (mine + other) + " bytes between them, more than the engine's " + s.engineBytes
                + ": their memory does not come from the engine");
    }

    /** What the subject's engine has free, by its own counter. */
    static long free(TckSubject s) {
        return s.engineBytes - (s.engine.engineUsedBytes() - s.engineStart);
    }

    private static String describe(Throwable t) {
        return t == null ? "nothing" : ThreadStacks.causes(t);
    }
}
