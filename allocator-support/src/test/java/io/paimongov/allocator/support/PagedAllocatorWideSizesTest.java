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
 * The capacity check holds over the whole {@code long} range: a request near {@link
 * Long#MAX_VALUE} is refused by the allocator itself, before the engine is asked, also when the
 * engine would grant anything (so only the allocator's own check stands between the request and
 * the engine). The model is the capacity: a request past the room left never fits.
 */
class PagedAllocatorWideSizesTest {

    private static final int PAGE = 4096;

    /** An engine that grants whatever it is asked and counts it. */
    private static final class Unbounded extends HeapPagedAllocator {
        final AtomicLong engine = new AtomicLong();

        Unbounded(long capacity) {
            super("unbounded", "unbounded pages", PAGE, capacity, null);
        }

        @Override
        protected boolean reserveBytes(long bytes) {
            engine.addAndGet(bytes);
            return true;
        }

        @Override
        protected void unreserveBytes(long bytes) {
            engine.addAndGet(-bytes);
        }
    }

    @Test
    void aRequestWhoseSumWithWhatIsHeldOverflowsIsRefused() {
        Unbounded allocator = new Unbounded(1L << 20);
        assertThat(allocator.tryReserve(1000)).isTrue();
        long overflowing = Long.MAX_VALUE - 1000 + 1;

        assertThat(allocator.tryReserve(overflowing)).as("tryReserve(%d) with 1000 of 1 MiB held", overflowing).isFalse();
        assertThat(allocator.tryReserve(Long.MAX_VALUE)).isFalse();
        assertThat(allocator.usedBytes()).isEqualTo(1000);
        assertThat(allocator.engine.get()).as("what the engine was asked for").isEqualTo(1000);
    }

    @Test
    void pagesAreRefusedAtTheCapacityEvenNearTheTopOfTheRange() {
        long capacity = Long.MAX_VALUE - PAGE / 2;
        Unbounded allocator = new Unbounded(capacity);
        assertThat(allocator.tryReserve(capacity - PAGE)).isTrue();
        List<MemorySegment> pages = new ArrayList<>();

        allocator.allocate(pages, 1);
        assertThatThrownBy(() -> allocator.allocate(pages, 1)).isInstanceOf(ResourceExhaustedException.class);
        assertThat(pages).hasSize(1);
        assertThat(allocator.usedBytes()).isEqualTo(capacity);
        assertThat(allocator.engine.get()).isEqualTo(allocator.usedBytes());
    }
}
