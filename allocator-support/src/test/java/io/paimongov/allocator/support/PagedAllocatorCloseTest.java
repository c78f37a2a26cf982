package io.paimongov.allocator.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The leak side of a {@link PagedAllocator} and the engine kind's refusal: what a vendor gets
 * without writing a hook. The expected numbers come from the pages and bytes the test asked for.
 */
class PagedAllocatorCloseTest {

    private static final int PAGE = 4096;

    /** A heap allocator over a byte counter; notes what the leak counter held at the first give-back. */
    private static final class Counted extends HeapPagedAllocator {
        final AtomicLong engine = new AtomicLong();
        final LeakCounter leaks;
        long leakBytesAtFirstGiveBack = -1;

        Counted(LeakCounter leaks) {
            super("counted", "counted pages", PAGE, 16L * PAGE, null, leaks);
            this.leaks = leaks;
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            engine.addAndGet(bytes);
            return true;
        }

        @Override
        protected void unreserveBytes(long bytes) {
            if (leakBytesAtFirstGiveBack < 0) {
                leakBytesAtFirstGiveBack = leaks.bytes();
            }
            engine.addAndGet(-bytes);
        }
    }

    @Test
    void aLeakIsCountedBeforeAnythingGoesBackAndNamedInTheError() {
        LeakCounter leaks = new LeakCounter();
        Counted allocator = new Counted(leaks);
        allocator.allocate(new ArrayList<>(), 3);
        assertThat(allocator.tryReserve(1000)).isTrue();
        long held = 3L * PAGE + 1000;

        assertThatThrownBy(allocator::close)
                .isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("counted allocator closed with " + held + " bytes still held (3 pages)");
        assertThat(allocator.leakBytesAtFirstGiveBack).isEqualTo(held);
        assertThat(leaks.count()).isEqualTo(1);
        assertThat(leaks.bytes()).isEqualTo(held);
        assertThat(allocator.engine.get()).isZero();
        assertThat(allocator.leakedBytes()).isEqualTo(held);
        allocator.close();
        assertThat(leaks.count()).isEqualTo(1);
    }

    @Test
    void aCleanCloseCountsNoLeak() {
        LeakCounter leaks = new LeakCounter();
        Counted allocator = new Counted(leaks);
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 2);
        allocator.release(pages);
        allocator.close();
        assertThat(leaks.count()).isZero();
        assertThat(allocator.leakedBytes()).isZero();
    }

    @Test
    void closeEngineSeesTheLeakAndDecidesWhatCloseThrows() {
        List<LeakReport> seen = new ArrayList<>();
        HeapPagedAllocator quiet = new HeapPagedAllocator("quiet", "quiet pages", PAGE, 8L * PAGE, null) {
            @Override
            protected boolean reserveBytes(long bytes) {
                return true;
            }

            @Override
            protected void unreserveBytes(long bytes) {}

            @Override
            protected IllegalStateException closeEngine(LeakReport leak) {
                seen.add(leak);
                return null;
            }
        };
        quiet.allocate(new ArrayList<>(), 2);
        assertThat(quiet.tryReserve(10)).isTrue();
        quiet.close();
        assertThat(seen).containsExactly(new LeakReport("quiet", 2L * PAGE + 10, 2, 10));
    }

    /** An engine that makes pages and refuses the third of an allocation; it counts what it made. */
    private static final class RefusingEngine extends EnginePagedAllocator<byte[]> {
        final AtomicLong made = new AtomicLong();

        RefusingEngine() {
            super("refusing", "refusing pages", PAGE, 16L * PAGE, null);
        }

        @Override
        protected void takePages(int count, List<byte[]> into) {
            for (int i = 0; i < count; i++) {
                if (i == 2) {
                    throw new UnsupportedOperationException("the engine has no third page");
                }
                made.incrementAndGet();
                into.add(new byte[PAGE]);
            }
        }

        @Override
        protected MemorySegment segment(byte[] page) {
            return MemorySegment.wrap(page);
        }

        @Override
        protected void givePages(List<byte[]> pages) {
            made.addAndGet(-pages.size());
        }

        @Override
        protected boolean isRefusal(Throwable failure) {
            return failure instanceof UnsupportedOperationException;
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            return true;
        }

        @Override
        protected void unreserveBytes(long bytes) {}
    }

    @Test
    void anEngineRefusalPartWayGivesThePagesBackAndIsResourceExhausted() {
        RefusingEngine allocator = new RefusingEngine();
        List<MemorySegment> target = new ArrayList<>();
        assertThatThrownBy(() -> allocator.allocate(target, 3))
                .isInstanceOfSatisfying(ResourceExhaustedException.class, e -> {
                    assertThat(e.requestedBytes()).isEqualTo(3L * PAGE);
                    assertThat(e.getCause()).hasMessage("the engine has no third page");
                });
        assertThat(target).isEmpty();
        assertThat(allocator.made.get()).isZero();
        assertThat(allocator.usedBytes()).isZero();
        allocator.allocate(target, 2);
        assertThat(allocator.usedBytes()).isEqualTo(2L * PAGE);
        allocator.release(target);
        allocator.close();
    }
}
