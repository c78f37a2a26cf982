package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-14's checks: sizes as {@code long} over their whole range. The large sizes are only ever
 * reserved ({@code tryReserve}), which is accounting in every engine the kit knows; the pages taken
 * are one at a time. So a budget of 2^40 bytes costs a page of memory, not 2^40 bytes.
 *
 * <p>Stateless; each method runs on the rule's thread.
 */
final class WideSizes {

    /** MEM-14's budgets: past 2^31 (3 GiB), 2^40, and within a MiB of {@link Long#MAX_VALUE}. */
    static final List<Long> BUDGETS = List.of(3L << 30, 1L << 40, Long.MAX_VALUE & -(1L << 20));

    /** A reservation past 2^31 bytes that no power of two hides: 2 GiB and 12345 bytes. */
    static final long PAST_INT = (1L << 31) + 12_345;

    private WideSizes() {}

    /**
     * On an allocator of an ordinary budget holding a page and 1000 bytes: reservations past the
     * room left, from 2^31 bytes to {@link Long#MAX_VALUE}, are refused and change nothing. One of
     * them is 2^32 + 1000 bytes, which is 1000 in an {@code int}; another makes {@code used +
     * request} overflow to a negative number.
     */
    static void requestsPastTheRoom(TckSubject s) {
        EngineResources resources = s.open();
        SegmentAllocator allocator = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 1);
        check(Rule.MEM_14, allocator.tryReserve(1000), "tryReserve(1000) was refused on an allocator holding one page");
        long used = allocator.usedBytes();
        for (long request : List.of(1L << 31, (1L << 32) + 1000, 3L << 30, 1L << 40, Long.MAX_VALUE - used + 1, Long.MAX_VALUE)) {
            refused(s, allocator, request, "an ordinary budget");
        }
        allocator.release(pages);
        allocator.release(1000);
        check(Rule.MEM_14, allocator.usedBytes() == 0, "usedBytes() is " + allocator.usedBytes() + " after everything was given back");
        s.checkEngineBack(Rule.MEM_14, "everything was given back");
        resources.close();
    }

    /**
     * A write of {@code budget} on an engine of as much: refused at open taking nothing, or a
     * capacity of the whole budget in which a reservation past 2^31 bytes, a page and then the
     * exact rest of the capacity are counted exactly, and requests past the room are refused.
     *
     * @return what happened, for the rule's report
     */
    static String budget(TckContext kit, long budget) {
        TckSubject s;
        try {
            s = kit.subject(budget);
        } catch (IllegalArgumentException e) {
            return "the standalone engine cannot be made that large (" + ThreadStacks.causes(e) + ")";
        }
        try (s) {
            EngineResources resources;
            try {
                resources = s.open();
            } catch (IllegalArgumentException | ResourceExhaustedException e) {
                check(Rule.MEM_14, s.engine.engineUsedBytes() == s.engineStart,
                        "open refused governance.memory.budget = " + budget + " (" + e + ") and left the engine counter at "
                                + s.engine.engineUsedBytes() + "; it started at " + s.engineStart);
                return "open refused it (" + e.getClass().getSimpleName() + ")";
            }
            fillToTheCapacity(s, resources.memory(), budget);
            resources.close();
            s.checkEngineBack(Rule.MEM_14, "a write of governance.memory.budget = " + budget + " closed");
            return "capacity " + budget + ", filled and emptied";
        }
    }

    private static void fillToTheCapacity(TckSubject s, SegmentAllocator allocator, long budget) {
        String of = "governance.memory.budget = " + budget;
        long capacity = allocator.capacityBytes();
        check(Rule.MEM_14, capacity == budget,
                "capacityBytes() is " + capacity + " for " + of + " on an engine of as much; it must be the whole budget");
        reserved(s, allocator, PAST_INT, PAST_INT, of);
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 1);
        long held = PAST_INT + allocator.pageSize();
        counted(s, allocator, held, "a page more", of);
        long room = capacity - held;
        refused(s, allocator, room + 1, "one byte past the room left, " + of);
        refused(s, allocator, Long.MAX_VALUE - held + 1, "used + request overflows, " + of);
        refused(s, allocator, Long.MAX_VALUE, of);
        reserved(s, allocator, room, capacity, of);
        refused(s, allocator, 1, "at the capacity, " + of);
        allocator.release(room);
        allocator.release(PAST_INT);
        allocator.release(pages);
        counted(s, allocator, 0, "everything given back", of);
    }

    /** {@code tryReserve(bytes)} is granted and then {@code total} is held, in the allocator and in the engine. */
    private static void reserved(TckSubject s, SegmentAllocator allocator, long bytes, long total, String of) {
        check(Rule.MEM_14, allocator.tryReserve(bytes),
                "tryReserve(" + bytes + ") was refused with " + allocator.usedBytes() + " of " + allocator.capacityBytes() + " bytes taken ("
                        + of + ")");
        counted(s, allocator, total, "tryReserve(" + bytes + ")", of);
    }

    /** {@code usedBytes()} is {@code total} and the engine's counter its start plus {@code total}. */
    private static void counted(TckSubject s, SegmentAllocator allocator, long total, String after, String of) {
        long used = allocator.usedBytes();
        check(Rule.MEM_14, used == total, "after " + after + " usedBytes() is " + used + " where " + total + " bytes are held (" + of + ")");
        long engine = s.engine.engineUsedBytes() - s.engineStart;
        check(Rule.MEM_14, engine == total,
                "after " + after + " the engine counter is up by " + engine + " where " + total + " bytes are held (" + of + ")");
    }

    /** {@code tryReserve(bytes)} returns false, without throwing, and moves no counter. */
    private static void refused(TckSubject s, SegmentAllocator allocator, long bytes, String when) {
        long used = allocator.usedBytes();
        long engine = s.engine.engineUsedBytes();
        boolean granted;
        try {
            granted = allocator.tryReserve(bytes);
        } catch (RuntimeException e) {
            throw new AssertionError(Rule.MEM_14.fail("tryReserve(" + bytes + ") with " + used + " bytes taken (" + when + ") threw " + e
                    + " instead of returning false"), e);
        }
        check(Rule.MEM_14, !granted,
                "tryReserve(" + bytes + ") was granted with " + used + " of " + allocator.capacityBytes() + " bytes taken (" + when + ")");
        check(Rule.MEM_14, allocator.usedBytes() == used && s.engine.engineUsedBytes() == engine,
                "a refused tryReserve(" + bytes + ") moved usedBytes() from " + used + " to " + allocator.usedBytes()
                        + " and the engine counter from " + engine + " to " + s.engine.engineUsedBytes());
    }
}
