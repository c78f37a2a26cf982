package io.paimongov.runtime.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.allocator.support.HeapPagedAllocator;
import io.paimongov.spi.SegmentAllocator.AllocatorContractException;
import io.paimongov.spi.WriteCancelledException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;

class GovernedSegmentPoolTest {

    private final BoundedTestAllocator allocator = new BoundedTestAllocator(4096, 8 * 4096);
    private final MemoryBudget budget = new MemoryBudget(allocator);

    @Test
    void givesPagesUntilTheBudgetIsSpentThenNull() {
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, () -> {});
        List<MemorySegment> pages = new ArrayList<>();
        MemorySegment page;
        while ((page = pool.nextSegment()) != null) {
            pages.add(page);
        }
        assertThat(pages).hasSize(8).allSatisfy(p -> assertThat(p.size()).isEqualTo(4096));
        assertThat(pool.deniedCount()).isEqualTo(1);
        assertThat(budget.reservedBytes()).isEqualTo(8 * 4096);
        assertThat(pool.freePages()).isZero();
    }

    @Test
    void returnedPagesAreReusedAndCachedPagesCanBeReleased() {
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, () -> {});
        MemorySegment a = pool.nextSegment();
        MemorySegment b = pool.nextSegment();
        pool.returnAll(List.of(a, b));
        assertThat(cached(pool, 0)).isEqualTo(2);
        assertThat(pool.nextSegment()).isSameAs(b);
        assertThat(allocator.usedBytes()).isEqualTo(2 * 4096);
        assertThat(pool.releaseCached()).isEqualTo(4096);
        assertThat(allocator.usedBytes()).isEqualTo(4096);
        assertThat(budget.reservedBytes()).isEqualTo(4096);
    }

    @Test
    void theFirstPagesFloorIsTakenFromTheEngineAndNeverReleasedWhileOpen() {
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, () -> {});
        assertThat(pool.holdFirstPages(3)).isTrue();
        assertThat(cached(pool, 0)).isEqualTo(3);
        assertThat(allocator.usedBytes()).isEqualTo(3 * 4096);
        assertThat(pool.releaseCached()).as("the floor stays").isZero();

        List<MemorySegment> used = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            used.add(pool.nextSegment());
        }
        assertThat(cached(pool, used.size())).isZero();
        pool.returnAll(used);
        assertThat(pool.releaseCached()).isEqualTo(2 * 4096);
        assertThat(cached(pool, 0)).isEqualTo(3);
        assertThat(budget.reservedBytes()).isEqualTo(3 * 4096);

        pool.close();
        assertThat(allocator.usedBytes()).isZero();
        assertThat(budget.reservedBytes()).isZero();
        assertThat(pool.holdFirstPages(3)).isFalse();
    }

    @Test
    void holdingTheFirstPagesFailsWhenTheBudgetIsShortAndKeepsWhatItTook() {
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, () -> {});
        MemoryReservation encoder = budget.newReservation("encoder");
        encoder.grow(6 * 4096);
        assertThat(pool.holdFirstPages(3)).isFalse();
        assertThat(cached(pool, 0)).isEqualTo(2);
        assertThat(budget.reservedBytes()).isEqualTo(8 * 4096);
        encoder.close();
        assertThat(pool.holdFirstPages(3)).isTrue();
        pool.close();
        assertThat(allocator.usedBytes()).isZero();
    }

    @Test
    void otherConsumersShareTheSameBudget() {
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, () -> {});
        budget.newReservation("encoder").grow(6 * 4096);
        assertThat(pool.nextSegment()).isNotNull();
        assertThat(pool.nextSegment()).isNotNull();
        assertThat(pool.nextSegment()).isNull();
    }

    @Test
    void closeReturnsPagesPaimonNeverReturned() {
        GovernedSegmentPool pool = new GovernedSegmentPool(budget, () -> {});
        pool.nextSegment();
        pool.nextSegment();
        pool.returnAll(List.of(pool.nextSegment()));
        pool.close();
        pool.close();
        assertThat(allocator.usedBytes()).isZero();
        assertThat(budget.reservedBytes()).isZero();
        assertThat(pool.nextSegment()).isNull();
    }

    /**
     * Close gives the engine its pages back in the order the pool took them, cached ones and ones
     * Paimon kept alike: an engine may free pages faster in the order it made them (Flink's memory
     * manager did, measured by {@code bench cancel}).
     */
    @Test
    void closeGivesThePagesBackInTheOrderThePoolTookThem() {
        RecordingEngineAllocator engine = new RecordingEngineAllocator(4096, 16 * 4096);
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(engine), () -> {});
        List<MemorySegment> taken = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            taken.add(pool.nextSegment());
        }
        pool.returnAll(List.of(taken.get(5), taken.get(2)));
        pool.nextSegment();
        pool.close();
        assertThat(engine.givenBack).isEqualTo(List.of(0, 1, 2, 3, 4, 5, 6, 7));
        assertThat(engine.usedBytes()).isZero();
    }

    @Test
    void theCheckBeforeAllocationStopsACancelledWrite() {
        AtomicBoolean cancelled = new AtomicBoolean();
        GovernedSegmentPool pool =
                new GovernedSegmentPool(
                        budget,
                        () -> {
                            if (cancelled.get()) {
                                throw new WriteCancelledException("test");
                            }
                        });
        assertThat(pool.nextSegment()).isNotNull();
        cancelled.set(true);
        assertThatThrownBy(pool::nextSegment).isInstanceOf(WriteCancelledException.class);
        assertThat(pool.ownedPages()).isEqualTo(1);
    }

    /** Pages the pool keeps for reuse: those it took from the engine minus the {@code held} ones the test uses. */
    private static int cached(GovernedSegmentPool pool, int held) {
        return pool.ownedPages() - held;
    }

    /** A heap allocator with one fault at a time, for the pool's boundary checks. */
    private static final class FaultyAllocator extends HeapPagedAllocator {
        int pageBytes = 4096;
        byte[] shared;
        MemorySegment same;
        final java.util.ArrayDeque<MemorySegment> queued = new java.util.ArrayDeque<>();
        long usedOffset;

        FaultyAllocator() {
            super("faulty", "faulty pages", 4096, 8 * 4096, null);
        }

        @Override
        protected MemorySegment newPage() {
            if (same != null) {
                return same;
            }
            if (!queued.isEmpty()) {
                return queued.poll();
            }
            return MemorySegment.wrap(shared != null ? shared : new byte[pageBytes]);
        }

        @Override
        public long usedBytes() {
            return super.usedBytes() + usedOffset;
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            return true;
        }

        @Override
        protected void unreserveBytes(long bytes) {}
    }

    @Test
    void aPageOfAnotherSizeFailsWithTheAllocatorNamedAndIsGivenBack() {
        FaultyAllocator faulty = new FaultyAllocator();
        faulty.pageBytes = 8192;
        MemoryBudget b = new MemoryBudget(faulty);
        GovernedSegmentPool pool = new GovernedSegmentPool(b, () -> {});

        assertThatThrownBy(pool::nextSegment)
                .isInstanceOf(AllocatorContractException.class)
                .hasMessage("the allocator " + FaultyAllocator.class.getName()
                        + " broke ALLOC.4 of docs/spi.md: a page of 8192 bytes; pageSize() is 4096")
                .extracting(e -> ((AllocatorContractException) e).clause()).isEqualTo("ALLOC.4");
        assertThat(faulty.usedBytes()).as("the page went back to the allocator").isZero();
        assertThat(b.reservedBytes()).isZero();
        assertThat(pool.ownedPages()).isZero();
    }

    @Test
    void aPageHandedOutAgainWhileLiveFails() {
        FaultyAllocator faulty = new FaultyAllocator();
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(faulty), () -> {});
        faulty.same = pool.nextSegment();

        assertThatThrownBy(pool::nextSegment)
                .isInstanceOf(AllocatorContractException.class)
                .hasMessageEndingWith("broke ALLOC.4 of docs/spi.md: a page still live in this write was handed out again");
        assertThat(pool.ownedPages()).isEqualTo(1);
    }

    @Test
    void aNewPageOverTheMemoryOfALivePageFails() {
        FaultyAllocator faulty = new FaultyAllocator();
        faulty.shared = new byte[4096];
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(faulty), () -> {});
        MemorySegment first = pool.nextSegment();

        assertThatThrownBy(pool::nextSegment)
                .isInstanceOf(AllocatorContractException.class)
                .hasMessageEndingWith("a new page is over the memory of a page still live in this write");
        // Once the first page went back to the engine, its memory may come again.
        pool.returnAll(List.of(first));
        assertThat(pool.releaseCached()).isEqualTo(4096);
        assertThat(pool.nextSegment()).isNotNull();
    }

    @Test
    void negativeUsedBytesFail() {
        FaultyAllocator faulty = new FaultyAllocator();
        faulty.usedOffset = -3 * 4096;
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(faulty), () -> {});

        assertThatThrownBy(pool::nextSegment)
                .isInstanceOf(AllocatorContractException.class)
                .hasMessageEndingWith("broke ALLOC.2 of docs/spi.md: usedBytes() is -8192");
    }

    /** Real native memory: two distinct segment objects over one direct buffer have one address. */
    @Test
    void twoOffHeapSegmentsOverOneNativeBufferFail() {
        GovernedSegmentPool pool = poolOfTwoSegmentsOverOneNativeBuffer();
        MemorySegment first = pool.nextSegment();
        assertThat(first.isOffHeap()).isTrue();

        assertThatThrownBy(pool::nextSegment)
                .isInstanceOf(AllocatorContractException.class)
                .hasMessageStartingWith("the allocator " + FaultyAllocator.class.getName() + " broke ALLOC.4 of docs/spi.md:"
                        + " a new off-heap page at native address 0x")
                .hasMessageContaining("overlaps the live page at 0x")
                .extracting(e -> ((AllocatorContractException) e).clause()).isEqualTo("ALLOC.4");
        assertThat(pool.ownedPages()).isEqualTo(1);
    }

    /** Pages over one native block: half a page apart overlap (from below and from above); a page apart do not. */
    @Test
    void offHeapPagesThatOverlapPartlyFailAndNeighboursPass() {
        ByteBuffer block = ByteBuffer.allocateDirect(4 * 4096);
        FaultyAllocator faulty = new FaultyAllocator();
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(block.slice(4096, 4096)));
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(block.slice(2 * 4096, 4096)));
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(block.slice(4096 + 2048, 4096)));
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(block.slice(2048, 4096)));
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(block.slice(0, 4096)));
        GovernedSegmentPool pool = new GovernedSegmentPool(new MemoryBudget(faulty), () -> {});
        assertThat(pool.nextSegment()).isNotNull();
        assertThat(pool.nextSegment()).as("the page right above a live one").isNotNull();
        assertThatThrownBy(pool::nextSegment).hasMessageContaining("overlaps the live page");
        assertThatThrownBy(pool::nextSegment).hasMessageContaining("overlaps the live page");
        assertThat(pool.nextSegment()).as("the page right below a live one").isNotNull();
        assertThat(pool.ownedPages()).isEqualTo(3);
    }

    /** Once an off-heap page went back to the engine, its address may come again. */
    @Test
    void anOffHeapAddressGivenBackMayComeAgain() {
        GovernedSegmentPool pool = poolOfTwoSegmentsOverOneNativeBuffer();
        MemorySegment first = pool.nextSegment();
        pool.returnAll(List.of(first));
        assertThat(pool.releaseCached()).isEqualTo(4096);
        assertThat(pool.nextSegment()).isNotNull();
    }

    /** A pool whose allocator gives two distinct segments over one real 4k direct buffer, in turn. */
    private static GovernedSegmentPool poolOfTwoSegmentsOverOneNativeBuffer() {
        ByteBuffer native4k = ByteBuffer.allocateDirect(4096);
        FaultyAllocator faulty = new FaultyAllocator();
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(native4k));
        faulty.queued.add(MemorySegment.wrapOffHeapMemory(native4k.duplicate()));
        return new GovernedSegmentPool(new MemoryBudget(faulty), () -> {});
    }
}
