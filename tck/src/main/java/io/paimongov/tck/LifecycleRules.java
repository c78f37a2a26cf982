package io.paimongov.tck;

import static io.paimongov.tck.MemoryRules.sharing;
import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-6 to MEM-10: the allocator's lifecycle: what closing gives back, closing twice, use after
 * close, the capacity and page size the options ask for, and releases that are repeated or
 * misdirected.
 */
interface LifecycleRules extends MemoryRules {

    @Example
    @Verifies(Rule.MEM_6)
    default void required_MEM6_closingReturnsTheEnginesMemory() {
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
    default void required_MEM7_closeIsIdempotent() {
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
    default void required_MEM8_useAfterCloseFailsWithATypedError() {
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

    /** Two page-size settings MEM-9 opens with, in bytes: the kit's own (64k) and a smaller one. */
    static final List<Integer> MEM9_PAGE_SIZES = List.of(64 << 10, 16 << 10);

    /**
     * Opens a write with each page size of {@link #MEM9_PAGE_SIZES} and checks capacity, page size
     * and the pages themselves against the setting (ALLOC.1): {@code pageSize()} is the setting,
     * unless the allocator says the engine fixes it; then it is the same under both settings.
     */
    @Example
    @Verifies(Rule.MEM_9)
    default void required_MEM9_capacityAndPageSizeFollowTheOptions() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            Integer engineFixed = null;
            for (int asked : MEM9_PAGE_SIZES) {
                String setting = Integer.toString(asked);
                EngineResources resources = s.open("governance.memory.page-size", setting);
                SegmentAllocator allocator = resources.memory();
                long capacity = allocator.capacityBytes();
                int pageSize = allocator.pageSize();
                check(Rule.MEM_9, capacity > 0 && capacity <= MEM_BUDGET,
                        "capacityBytes() is " + capacity + "; governance.memory.budget is " + MEM_BUDGET,
                        "capacityBytes() must be positive and at most governance.memory.budget, read from the options given to open().");
                check(Rule.MEM_9, pageSize >= 4096 && Integer.bitCount(pageSize) == 1, "pageSize() is " + pageSize,
                        "pageSize() must be a power of two of at least 4096 bytes.");
                if (allocator.pageSizeFixedByEngine()) {
                    check(Rule.MEM_9, engineFixed == null || engineFixed == pageSize,
                            "pageSize() is " + engineFixed + " with one setting and " + pageSize + " with another, yet pageSizeFixedByEngine() says the engine fixes it",
                            "when pageSizeFixedByEngine() is true, pageSize() must be the engine's page size whatever governance.memory.page-size says; else return false and follow the option.");
                    engineFixed = pageSize;
                } else {
                    check(Rule.MEM_9, pageSize == asked,
                            "pageSize() is " + pageSize + " with governance.memory.page-size = " + setting
                                    + ", and pageSizeFixedByEngine() is false",
                            "read governance.memory.page-size from the options given to open(); if the engine decides the page size, return true from pageSizeFixedByEngine().");
                }
                checkPageSizes(allocator, pageSize, setting);
                resources.close();
            }
        }
    }

    /** Every page of a few taken has {@code pageSize} bytes. */
    private static void checkPageSizes(SegmentAllocator allocator, int pageSize, String setting) {
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 1);
        allocator.allocate(pages, 2);
        for (MemorySegment page : pages) {
            check(Rule.MEM_9, page.size() == pageSize,
                    "a page has " + page.size() + " bytes; pageSize() is " + pageSize + " (governance.memory.page-size = " + setting + ")",
                    "allocate() must give pages of exactly pageSize() bytes.");
        }
        allocator.release(pages);
    }

    @Example
    @Verifies(Rule.MEM_10)
    default void required_MEM10_repeatedOrMisdirectedReleasesChangeNothingHeld() throws Exception {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources mine = s.open();
            EngineResources theirs = s.open();
            SegmentAllocator allocator = mine.memory();
            SegmentAllocator other = theirs.memory();
            long page = allocator.pageSize();
            List<MemorySegment> pages = new ArrayList<>();
            allocator.allocate(pages, 2);
            MemorySegment first = pages.get(0);
            MemorySegment kept = pages.get(1);

            allocator.release(List.of(first));
            long engine = s.engine.engineUsedBytes();
            allocator.release(List.of(first));
            held(s, allocator, page, engine, "a second release of the same page");

            check(Rule.MEM_10, allocator.tryReserve(1000), "tryReserve(1000) refused on an almost empty allocator");
            allocator.release(1000);
            allocator.release(1000);
            held(s, allocator, page, engine, "release(1000) of a reservation of 1000 bytes, twice");

            List<MemorySegment> foreign = new ArrayList<>();
            other.allocate(foreign, 1);
            engine = s.engine.engineUsedBytes();
            allocator.release(foreign);
            held(s, allocator, page, engine, "release of a page another allocator handed out");
            check(Rule.MEM_10, other.usedBytes() == page,
                    "the other allocator's usedBytes() is " + other.usedBytes() + " after this allocator was given its page; it holds " + page);

            // A free list that took the first page twice now hands it out twice.
            List<MemorySegment> fresh = new ArrayList<>();
            allocator.allocate(fresh, 3);
            List<MemorySegment> live = new ArrayList<>(fresh);
            live.add(kept);
            live.add(foreign.get(0));
            String shared = sharing(live, (int) page, 0x5EED);
            check(Rule.MEM_10, shared == null, shared + " after the releases above");

            Thread releaser = new Thread(() -> allocator.release(new ArrayList<>(fresh)), "tck-mem10-releaser");
            releaser.start();
            releaser.join();
            held(s, allocator, page, engine, "release of 3 pages from another thread");

            allocator.release(List.of(kept));
            mine.close();
            engine = s.engine.engineUsedBytes();
            Throwable after = thrown(() -> {
                allocator.release(List.of(kept));
                allocator.release(fresh);
                allocator.release(1000);
            });
            check(Rule.MEM_10, after == null, "a release after close threw " + after);
            check(Rule.MEM_10, s.engine.engineUsedBytes() == engine,
                    "releases after close moved the engine counter from " + engine + " to " + s.engine.engineUsedBytes());
            check(Rule.MEM_10, other.usedBytes() == page, "releases to a closed allocator moved the other's usedBytes() to " + other.usedBytes());
            other.release(foreign);
            theirs.close();
        }
    }

    /** The allocator holds one page and the engine counter is {@code engine}, after {@code what}. */
    private static void held(TckSubject s, SegmentAllocator allocator, long page, long engine, String what) {
        check(Rule.MEM_10, allocator.usedBytes() == page,
                what + " left usedBytes() at " + allocator.usedBytes() + "; one page of " + page + " bytes is still held");
        check(Rule.MEM_10, s.engine.engineUsedBytes() == engine,
                what + " moved the engine counter from " + engine + " to " + s.engine.engineUsedBytes());
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
