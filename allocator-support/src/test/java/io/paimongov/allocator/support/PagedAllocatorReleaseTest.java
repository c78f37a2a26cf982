package io.paimongov.allocator.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.CleanupException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Releases and close against an engine that is only a counter: the allocator's counters never show
 * memory as given back before the engine took it, and a leak at close stays visible. The model is
 * the bytes this test took and did not give back.
 */
class PagedAllocatorReleaseTest {

    private static final int PAGE = 4096;

    /** An engine counter; every give-back checks that the allocator still counts what it gives. */
    private static final class Counted extends HeapPagedAllocator {
        final AtomicLong engine = new AtomicLong();
        final List<String> early = new ArrayList<>();
        /** How many of the next give-backs the engine refuses (throws, counting nothing). */
        int refusals;

        Counted(long capacity) {
            super("counted", "counted pages", PAGE, capacity, null);
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            engine.addAndGet(bytes);
            return true;
        }

        @Override
        protected void unreserveBytes(long bytes) {
            if (refusals > 0) {
                refusals--;
                throw new IllegalStateException("injected: the engine refused " + bytes + " bytes");
            }
            if (usedBytes() != engine.get()) {
                early.add("usedBytes() " + usedBytes() + " while the engine still counts " + engine.get());
            }
            engine.addAndGet(-bytes);
        }
    }

    @Test
    void countersMoveOnlyAfterTheEngineTookTheMemoryBack() {
        Counted allocator = new Counted(64L * PAGE);
        Random random = new Random(7);
        List<MemorySegment> pages = new ArrayList<>();
        long reserved = 0;
        for (int step = 0; step < 400; step++) {
            switch (random.nextInt(4)) {
                case 0 -> allocator.allocate(pages, 1 + random.nextInt(3));
                case 1 -> {
                    int n = random.nextInt(pages.size() + 1);
                    List<MemorySegment> back = new ArrayList<>(pages.subList(0, n));
                    pages.subList(0, n).clear();
                    allocator.release(back);
                }
                case 2 -> {
                    long bytes = 1 + random.nextInt(3 * PAGE);
                    if (allocator.tryReserve(bytes)) {
                        reserved += bytes;
                    }
                }
                default -> {
                    long bytes = random.nextInt((int) reserved + 1);
                    allocator.release(bytes);
                    reserved -= bytes;
                }
            }
            if (allocator.usedBytes() > 48L * PAGE) {
                allocator.release(pages);
                pages.clear();
            }
            assertThat(allocator.usedBytes()).isEqualTo(pages.size() * (long) PAGE + reserved);
        }
        long model = pages.size() * (long) PAGE + reserved;
        assertThatThrownBy(allocator::close).isInstanceOf(IllegalStateException.class)
                .hasMessage("counted allocator closed with " + model + " bytes still held (" + pages.size() + " pages)");
        assertThat(allocator.early).isEmpty();
        assertThat(allocator.engine.get()).isZero();
        assertThat(allocator.leakedBytes()).isEqualTo(model);
        assertThat(allocator.usedBytes()).isZero();
        allocator.close();
        assertThat(allocator.leakedBytes()).isEqualTo(model);
    }

    /** Pages go back to the engine in the order the caller lists them; a page listed twice goes back once. */
    @Test
    void pagesGoBackInTheCallersOrderAndOnlyOnce() {
        List<Integer> givenBack = new ArrayList<>();
        EnginePagedAllocator<byte[]> numbered = new EnginePagedAllocator<>("numbered", "numbered pages", PAGE, 8L * PAGE, null) {
            private int made;

            @Override
            protected void takePages(int count, List<byte[]> into) {
                for (int i = 0; i < count; i++) {
                    byte[] page = new byte[PAGE];
                    page[0] = (byte) made++;
                    into.add(page);
                }
            }

            @Override
            protected MemorySegment segment(byte[] page) {
                return MemorySegment.wrap(page);
            }

            @Override
            protected void givePages(List<byte[]> pages) {
                pages.forEach(p -> givenBack.add((int) p[0]));
            }

            @Override
            protected boolean reserveBytes(long bytes) {
                return true;
            }

            @Override
            protected void unreserveBytes(long bytes) {}
        };
        List<MemorySegment> pages = new ArrayList<>();
        numbered.allocate(pages, 5);
        numbered.release(List.of(pages.get(3), pages.get(0), pages.get(3), pages.get(4)));
        assertThat(givenBack).isEqualTo(List.of(3, 0, 4));
        assertThat(numbered.usedBytes()).isEqualTo(2L * PAGE);
        numbered.release(List.of(pages.get(2), pages.get(0), pages.get(1)));
        assertThat(givenBack).isEqualTo(List.of(3, 0, 4, 2, 1));
        assertThat(numbered.usedBytes()).isZero();
        numbered.close();
        assertThat(numbered.leakedBytes()).isZero();
    }

    @Test
    void aCleanCloseLeaksNothing() {
        Counted allocator = new Counted(8L * PAGE);
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 2);
        allocator.release(pages);
        allocator.close();
        assertThat(allocator.leakedBytes()).isZero();
        assertThat(allocator.early).isEmpty();
    }

    /**
     * The engine refuses give-backs: a refused page release or reservation release leaves both the
     * engine and the allocator where they were (the model is the engine's counter), the later
     * releases still work, and close, whose own first give-back is refused too, runs every step,
     * gives back what the engine takes and throws naming what it kept.
     */
    @Test
    void aRefusedReleaseChangesNoCounterAndTheCloseRunsEveryStepAndSaysWhatTheEngineKept() {
        Counted allocator = new Counted(64L * PAGE);
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 3);
        assertThat(allocator.tryReserve(1000)).isTrue();

        allocator.refusals = 1;
        allocator.release(pages.subList(0, 1));
        assertThat(allocator.releaseFailures()).isEqualTo(1);
        assertThat(allocator.usedBytes()).isEqualTo(allocator.engine.get()).isEqualTo(3L * PAGE + 1000);

        allocator.refusals = 1;
        allocator.release(400);
        assertThat(allocator.releaseFailures()).isEqualTo(2);
        assertThat(allocator.usedBytes()).isEqualTo(allocator.engine.get()).isEqualTo(3L * PAGE + 1000);

        allocator.release(400);
        assertThat(allocator.usedBytes()).isEqualTo(allocator.engine.get()).isEqualTo(3L * PAGE + 600);

        // Close: the page step is refused, the reservation step still runs and succeeds.
        allocator.refusals = 1;
        assertThatThrownBy(allocator::close).isInstanceOfSatisfying(CleanupException.class, e -> {
            assertThat(e.failedSteps()).hasSize(2);
            assertThat(e.failedSteps().get(0)).isEqualTo("leak check: counted allocator closed with "
                    + (3L * PAGE + 600) + " bytes still held (3 pages)");
            assertThat(e.failedSteps().get(1))
                    .startsWith("release: give " + 3L * PAGE + " page bytes back: IllegalStateException: injected")
                    .contains("still held: " + 3L * PAGE + " bytes were not given back to the engine")
                    .contains("earlier releases: 2 release(s) the engine did not confirm");
        });
        assertThat(allocator.engine.get()).as("the reservation went back").isEqualTo(3L * PAGE);
        assertThat(allocator.usedBytes()).isEqualTo(allocator.engine.get());
        assertThat(allocator.notGivenBack()).isEqualTo(3L * PAGE);
        assertThat(allocator.early).isEmpty();
    }
}
