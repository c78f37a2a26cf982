package io.paimongov.offheap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.runtime.config.GovernanceOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.rounding.SegmentRoundingPolicy;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The off-heap allocator through the SPI, judged by the engine's Arrow allocator it hangs under. */
class ArrowSegmentAllocatorTest {

    private static final int PAGE = 64 << 10;

    private RootAllocator engine = new RootAllocator(Long.MAX_VALUE);

    @AfterEach
    void engineIsEmptyAndClosesWithoutALeak() {
        assertThat(engine.getAllocatedMemory()).isZero();
        assertThatCode(engine::close).doesNotThrowAnyException();
    }

    private EngineResources open(String budget, String... more) {
        // The cases count in 64 KiB pages; the auto page size would give a small budget smaller ones.
        Map<String, String> values = new HashMap<>(Map.of(GovernanceOptions.MEMORY_BUDGET, budget, GovernanceOptions.PAGE_SIZE, "64k"));
        for (int i = 0; i < more.length; i += 2) {
            values.put(more[i], more[i + 1]);
        }
        return new OffheapGovernanceProvider()
                .open(GovernanceOptions.of(values).providerOptions(), EngineEnvironment.builder().with(BufferAllocator.class, engine).build());
    }

    @Test
    void pagesAndReservationsShowExactlyInTheEnginesArrowCounter() {
        EngineResources resources = open("4m");
        SegmentAllocator memory = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 3);
        assertThat(memory.tryReserve(1_000)).isTrue();
        assertThat(memory.tryReserve(12_345)).isTrue();

        long expected = 3L * PAGE + 1_000 + 12_345;
        assertThat(memory.usedBytes()).isEqualTo(expected);
        assertThat(engine.getAllocatedMemory()).isEqualTo(expected);
        assertThat(memory.capacityBytes()).isEqualTo(4 << 20);
        assertThat(engine.getChildAllocators()).singleElement().satisfies(child -> {
            assertThat(child.getName()).startsWith("paimon-gov-offheap-");
            assertThat(child.getLimit()).isEqualTo(4 << 20);
        });

        memory.release(pages);
        memory.release(13_345);
        assertThat(engine.getAllocatedMemory()).isZero();
        resources.close();
        assertThat(engine.getChildAllocators()).isEmpty();
    }

    @Test
    void reservationsComeBackExactlyInOtherChunkSizesThanTheyWereTaken() {
        EngineResources resources = open("4m");
        SegmentAllocator memory = resources.memory();
        assertThat(memory.tryReserve(1_000)).isTrue();
        assertThat(memory.tryReserve(3_001)).isTrue();

        memory.release(700);
        assertThat(engine.getAllocatedMemory()).isEqualTo(3_301);
        memory.release(2_500);
        assertThat(engine.getAllocatedMemory()).isEqualTo(801);
        memory.release(801);
        assertThat(engine.getAllocatedMemory()).isZero();
        resources.close();
    }

    @Test
    void releasingMoreBytesThanReservedLeavesThePagesAlone() {
        EngineResources resources = open("4m");
        SegmentAllocator memory = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 2);
        assertThat(memory.tryReserve(500)).isTrue();

        memory.release(10_000);
        assertThat(memory.usedBytes()).isEqualTo(2L * PAGE);
        memory.release(pages);
        resources.close();
    }

    @Test
    void aForeignOrReleasedPageChangesNothing() {
        EngineResources resources = open("4m");
        SegmentAllocator memory = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 2);
        memory.release(List.of(pages.get(0)));

        memory.release(List.of(pages.get(0), MemorySegment.wrap(new byte[PAGE])));
        assertThat(memory.usedBytes()).isEqualTo(PAGE);
        memory.release(pages);
        assertThat(memory.usedBytes()).isZero();
        resources.close();
    }

    @Test
    void pagesAreOffHeapPageSizedAndKeepWhatIsWritten() {
        EngineResources resources = open("4m", GovernanceOptions.PAGE_SIZE, "16k");
        SegmentAllocator memory = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 2);
        for (MemorySegment page : pages) {
            assertThat(page.isOffHeap()).isTrue();
            assertThat(page.size()).isEqualTo(16 << 10);
        }
        pages.get(0).putLong((16 << 10) - 8, 42L);
        pages.get(1).putLong((16 << 10) - 8, 43L);
        assertThat(pages.get(0).getLong((16 << 10) - 8)).isEqualTo(42L);
        assertThat(engine.getAllocatedMemory()).isEqualTo(2L * (16 << 10));
        memory.release(pages);
        resources.close();
    }

    /** The engine can give the budget (PROV.7), but another user holds all of it but 10 pages. */
    @Test
    void theEnginesLimitRefusesAllOrNothing() {
        engine.close();
        engine = new RootAllocator(4 << 20);
        BufferAllocator other = engine.newChildAllocator("other", 0, Long.MAX_VALUE);
        long held = (4 << 20) - 10L * PAGE;
        assertThat(other.forceAllocate(held)).isTrue();
        EngineResources resources = open("4m");
        SegmentAllocator memory = resources.memory();
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 8);

        List<MemorySegment> target = new ArrayList<>();
        assertThatThrownBy(() -> memory.allocate(target, 3))
                .isInstanceOfSatisfying(ResourceExhaustedException.class, e -> {
                    assertThat(e.requester()).isEqualTo("offheap pages");
                    assertThat(e.requestedBytes()).isEqualTo(3L * PAGE);
                    assertThat(e.capacityBytes()).isEqualTo(4 << 20);
                });
        assertThat(target).isEmpty();
        assertThat(memory.tryReserve(2L * PAGE + 1)).isFalse();
        assertThat(engine.getAllocatedMemory()).isEqualTo(held + 8L * PAGE);
        assertThat(engine.getPeakMemoryAllocation()).isEqualTo(held + 8L * PAGE);

        memory.allocate(target, 2);
        assertThat(target).hasSize(2);
        memory.release(pages);
        memory.release(target);
        resources.close();
        other.releaseBytes(held);
        other.close();
    }

    @Test
    void arrowRefusingHalfwayClosesThePagesTakenForTheCall() {
        // Another user of the engine's allocator takes the rest of it while the third page of the
        // call is being allocated: the race that passes the headroom check.
        engine.close();
        BufferAllocator[] thief = new BufferAllocator[1];
        int[] allocations = {0};
        engine = new RootAllocator(new AllocationListener() {
            @Override
            public void onPreAllocation(long size) {
                if (++allocations[0] == 3) {
                    thief[0].forceAllocate(engine.getHeadroom());
                }
            }
        }, 16L * PAGE);
        thief[0] = engine.newChildAllocator("thief", 0, Long.MAX_VALUE);
        EngineResources resources = open(String.valueOf(16L * PAGE));
        SegmentAllocator memory = resources.memory();

        List<MemorySegment> target = new ArrayList<>();
        assertThatThrownBy(() -> memory.allocate(target, 4))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasCauseInstanceOf(OutOfMemoryException.class);
        assertThat(target).isEmpty();
        assertThat(memory.usedBytes()).isZero();
        assertThat(engine.getAllocatedMemory()).isEqualTo(thief[0].getAllocatedMemory());

        resources.close();
        thief[0].releaseBytes(thief[0].getAllocatedMemory());
        thief[0].close();
    }

    @Test
    void aLeakAtCloseIsReleasedThenReportedNamingTheWriteAndCounted() {
        long leaksBefore = OffheapGovernanceProvider.leaksDetected();
        long bytesBefore = OffheapGovernanceProvider.leakedBytes();
        EngineResources resources = open("4m");
        // What ResourceContext.open does once the context is built: name the write to the engine.
        resources.metrics().writeOpened("orders-load", () -> null);
        resources.memory().allocate(new ArrayList<>(), 3);
        assertThat(resources.memory().tryReserve(1_000)).isTrue();

        long held = 3L * PAGE + 1_000;
        assertThatThrownBy(resources::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("offheap allocator of write 'orders-load' (Arrow allocator 'paimon-gov-offheap-")
                .hasMessageContaining("closed with " + held + " bytes still held (3 pages, 1000 reserved bytes)")
                .hasMessageEndingWith("they were released before the Arrow allocator closed");
        assertThat(OffheapGovernanceProvider.leaksDetected()).isEqualTo(leaksBefore + 1);
        assertThat(OffheapGovernanceProvider.leakedBytes()).isEqualTo(bytesBefore + held);
        assertThat(resources.memory().usedBytes()).isZero();
        assertThat(engine.getChildAllocators()).as("the child allocator closed after all").isEmpty();
        assertThatCode(resources::close).as("a second close").doesNotThrowAnyException();
    }

    @Test
    void aCleanCloseIsNotALeak() {
        long leaksBefore = OffheapGovernanceProvider.leaksDetected();
        EngineResources resources = open("4m");
        List<MemorySegment> pages = new ArrayList<>();
        resources.memory().allocate(pages, 1);
        resources.memory().release(pages);
        resources.close();
        assertThat(OffheapGovernanceProvider.leaksDetected()).isEqualTo(leaksBefore);
    }

    @Test
    void afterCloseTakingFailsWithATypedErrorAndReleasingDoesNothing() {
        EngineResources resources = open("4m");
        SegmentAllocator memory = resources.memory();
        resources.close();
        assertThatThrownBy(() -> memory.allocate(new ArrayList<>(), 1))
                .isInstanceOf(GovernanceClosedException.class)
                .hasMessage("offheap allocator is closed");
        assertThatThrownBy(() -> memory.tryReserve(1)).isInstanceOf(GovernanceClosedException.class);
        assertThatCode(() -> {
                    memory.release(5);
                    memory.release(List.of(MemorySegment.wrap(new byte[8])));
                })
                .doesNotThrowAnyException();
    }

    @Test
    void anUnknownKeyOfTheProvidersOwnIsRejectedByName() {
        assertThatThrownBy(() -> open("4m", "governance.offheap.root-limit", "1g"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.offheap.root-limit': the offheap provider has no options of its own");
        assertThat(engine.getChildAllocators()).isEmpty();
    }

    @Test
    void anEngineAllocatorThatWouldRoundPagesIsRejectedNamingThePageSize() {
        engine.close();
        engine = new RootAllocator(AllocationListener.NOOP, Long.MAX_VALUE, new SegmentRoundingPolicy(128 << 10));
        assertThatThrownBy(() -> open("4m"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.memory.page-size' = 65536 is rounded to 131072 bytes by the rounding policy of the"
                        + " engine's Arrow allocator 'ROOT'; choose a page size it keeps");
        assertThat(engine.getChildAllocators()).isEmpty();
    }
}
