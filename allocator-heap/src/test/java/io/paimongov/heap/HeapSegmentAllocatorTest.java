package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;

class HeapSegmentAllocatorTest {

    private final HeapSegmentAllocator allocator = new HeapSegmentAllocator(4096, 10 * 4096);

    @Test
    void allocationIsAllOrNothing() {
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 8);
        assertThat(pages).hasSize(8);
        assertThatThrownBy(() -> allocator.allocate(pages, 3))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessage("memory exhausted: 'heap pages' asked for 12288 bytes; 32768 of 40960 bytes are reserved, 8192 free; largest holders: none known");
        assertThat(pages).hasSize(8);
        assertThat(allocator.usedBytes()).isEqualTo(8 * 4096);
    }

    @Test
    void pagesAreWritableAndDistinct() {
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 4);
        for (int i = 0; i < pages.size(); i++) {
            pages.get(i).putInt(0, i);
        }
        for (int i = 0; i < pages.size(); i++) {
            assertThat(pages.get(i).getInt(0)).isEqualTo(i);
            assertThat(pages.get(i).size()).isEqualTo(4096);
        }
    }

    @Test
    void releasingForeignOrReleasedPagesChangesNothing() {
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 2);
        allocator.release(List.of(MemorySegment.wrap(new byte[4096])));
        assertThat(allocator.usedBytes()).isEqualTo(2 * 4096);
        allocator.release(pages);
        allocator.release(pages);
        assertThat(allocator.usedBytes()).isZero();
    }

    @Test
    void reservationsShareTheBudgetWithPages() {
        assertThat(allocator.tryReserve(9 * 4096)).isTrue();
        assertThatThrownBy(() -> allocator.allocate(new ArrayList<>(), 2)).isInstanceOf(ResourceExhaustedException.class);
        assertThat(allocator.tryReserve(4097)).isFalse();
        allocator.release(9 * 4096);
        assertThat(allocator.usedBytes()).isZero();
    }

    @Test
    void closeDetectsLeaksAndRejectsLaterUse() {
        allocator.allocate(new ArrayList<>(), 1);
        assertThatThrownBy(allocator::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("heap allocator closed with 4096 bytes still held (1 pages)");
        allocator.close();
        assertThatThrownBy(() -> allocator.tryReserve(1))
                .isInstanceOf(GovernanceClosedException.class)
                .hasMessage("heap allocator is closed");
    }

    /**
     * The model is the bytes this test took and did not give back: a close that finds them says so,
     * gives them to the pool, and keeps them in the leak counters it reports after the pool is empty.
     */
    @Test
    void aLeakAtCloseStaysInTheCountersAfterThePoolGotItBack() {
        HeapMemoryPool pool = new HeapMemoryPool(64L * 4096);
        HeapSegmentAllocator leaky = new HeapSegmentAllocator(4096, 32L * 4096, pool);
        Random random = new Random(11);
        List<MemorySegment> held = new ArrayList<>();
        long reservedModel = 0;
        for (int step = 0; step < 200; step++) {
            int what = random.nextInt(3);
            if (what == 0 && held.size() < 20) {
                leaky.allocate(held, 1);
            } else if (what == 1 && !held.isEmpty()) {
                leaky.release(List.of(held.remove(random.nextInt(held.size()))));
            } else if (reservedModel < 4 * 4096) {
                long bytes = 1 + random.nextInt(4096);
                assertThat(leaky.tryReserve(bytes)).isTrue();
                reservedModel += bytes;
            } else {
                leaky.release(reservedModel / 2);
                reservedModel -= reservedModel / 2;
            }
        }
        long model = held.size() * 4096L + reservedModel;
        assertThat(model).isPositive();
        assertThat(pool.usedBytes()).isEqualTo(model);
        long leaksBefore = HeapGovernanceProvider.leaksDetected();
        long bytesBefore = HeapGovernanceProvider.leakedBytes();
        assertThatThrownBy(leaky::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("heap allocator closed with " + model + " bytes still held (" + held.size() + " pages)");
        assertThat(leaky.leakedBytes()).isEqualTo(model);
        assertThat(HeapGovernanceProvider.leaksDetected() - leaksBefore).isEqualTo(1);
        assertThat(HeapGovernanceProvider.leakedBytes() - bytesBefore).isEqualTo(model);
        assertThat(pool.usedBytes()).isZero();
        assertThat(leaky.usedBytes()).isZero();
        leaky.close();
        assertThat(leaky.leakedBytes()).isEqualTo(model);
    }

    @Test
    void theProviderIsFoundByName() {
        GovernanceProvider provider = Providers.load("heap", getClass().getClassLoader());
        assertThat(provider).isInstanceOf(HeapGovernanceProvider.class);
        assertThat(Providers.load(null, getClass().getClassLoader()).name()).isEqualTo("heap");
    }
}
