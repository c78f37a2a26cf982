package io.paimongov.tck;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-6 to MEM-9: the allocator's lifecycle: what closing gives back, closing twice, use after
 * close, and the capacity and page size the options ask for.
 */
abstract class LifecycleRules extends MemoryRules {

    @Example
    @Verifies(Rule.MEM_6)
    void required_MEM6_closingReturnsTheEnginesMemory() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            List<MemorySegment> pages = new ArrayList<>();
            allocator.allocate(pages, 8);
            check(Rule.MEM_6, allocator.tryReserve(100_000), "tryReserve(100000) refused on an almost empty allocator");
            check(Rule.MEM_6, s.engine.engineUsedBytes() > s.engineStart,
                    "the engine's counter did not move when pages and bytes were taken: the memory does not come from the engine");
            allocator.release(pages.subList(0, 4));
            allocator.release(50_000);
            try {
                resources.close();
            } catch (IllegalStateException leakReported) {
                // EngineResources.close() may report memory still held, after releasing it
            }
            long now = s.engine.engineUsedBytes();
            check(Rule.MEM_6, now == s.engineStart,
                    "after close the engine's counter is " + now + " bytes; it started at " + s.engineStart);
        }
    }

    @Example
    @Verifies(Rule.MEM_7)
    void required_MEM7_closeIsIdempotent() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            List<MemorySegment> pages = new ArrayList<>();
            resources.memory().allocate(pages, 2);
            check(Rule.MEM_7, resources.memory().tryReserve(1000), "tryReserve(1000) refused on an almost empty allocator");
            resources.memory().release(pages);
            resources.memory().release(1000);
            resources.close();
            try {
                resources.close();
            } catch (RuntimeException e) {
                throw new AssertionError(Rule.MEM_7.fail("the second close() threw " + e), e);
            }
        }
    }

    @Example
    @Verifies(Rule.MEM_8)
    void required_MEM8_useAfterCloseFailsWithATypedError() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            resources.close();
            Throwable allocate = thrown(() -> allocator.allocate(new ArrayList<>(), 1));
            check(Rule.MEM_8, allocate instanceof GovernanceClosedException,
                    "allocate() after close gave " + (allocate == null ? "pages" : allocate.toString()));
            Throwable reserve = thrown(() -> allocator.tryReserve(1));
            check(Rule.MEM_8, reserve instanceof GovernanceClosedException,
                    "tryReserve() after close gave " + (reserve == null ? "no error" : reserve.toString()));
        }
    }

    @Example
    @Verifies(Rule.MEM_9)
    void required_MEM9_capacityAndPageSizeFollowTheOptions() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            long capacity = allocator.capacityBytes();
            int pageSize = allocator.pageSize();
            check(Rule.MEM_9, capacity > 0 && capacity <= MEM_BUDGET,
                    "capacityBytes() is " + capacity + "; governance.memory.budget is " + MEM_BUDGET);
            check(Rule.MEM_9, pageSize >= 4096 && Integer.bitCount(pageSize) == 1, "pageSize() is " + pageSize);
            resources.close();
        }
    }

    private static Throwable thrown(Runnable action) {
        try {
            action.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
