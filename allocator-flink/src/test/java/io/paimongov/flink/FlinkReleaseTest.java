package io.paimongov.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.CleanupException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.RefusingMemoryManager;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Releases Flink's memory manager does not confirm. The model is the manager's own counter
 * ({@code getMemorySize() - availableMemory()}): the allocator never counts less than the manager
 * holds for it, a refused release leaves both where they were, and every step of the close runs
 * even when an earlier one was refused.
 */
class FlinkReleaseTest {

    private static final int PAGE = 32 << 10;
    private static final long SIZE = 1 << 20;

    private static FlinkSegmentAllocator allocator(MemoryManager manager) {
        return new FlinkSegmentAllocator(manager, new FlinkSegmentAllocator.WriteOwner("release-test"), SIZE);
    }

    @Test
    void aRefusedPageReleaseLeavesThePagesCountedAndTheCloseGivesThemBackAndSaysSo() {
        RefusingMemoryManager manager = new RefusingMemoryManager(SIZE, PAGE);
        FlinkSegmentAllocator memory = allocator(manager);
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 1);
        memory.allocate(pages, 1);
        memory.allocate(pages, 1);
        assertThat(memory.tryReserve(1000)).isTrue();

        manager.refusePageReleases = 1;
        memory.release(pages.subList(0, 2));
        assertThat(memory.releaseFailures()).isEqualTo(1);
        assertThat(manager.usedBytes()).isEqualTo(3L * PAGE + 1000);
        assertThat(memory.usedBytes()).isEqualTo(manager.usedBytes());

        assertThatThrownBy(memory::close).isInstanceOfSatisfying(CleanupException.class, e -> {
            assertThat(e.failedSteps()).hasSize(2);
            assertThat(e.failedSteps().get(0)).startsWith("leak check: flink allocator of release-test closed with "
                    + (3L * PAGE + 1000) + " bytes still held (3 pages, 1000 reserved bytes); they were given back");
            assertThat(e.failedSteps().get(1)).startsWith("release: earlier releases: 1 release(s) the engine did not"
                    + " confirm").contains("injected: the memory manager refused to take pages back");
        });
        assertThat(manager.usedBytes()).isZero();
        assertThat(memory.usedBytes()).isZero();
        assertThat(memory.notGivenBack()).isZero();
    }

    /**
     * Pages, reservation and releaseAll all refused: the close still tries releaseAllMemory, which
     * gives the reservation back, and the allocator keeps counting what the manager did not confirm.
     */
    @Test
    void aRefusedReleaseAllDoesNotSkipReleaseAllMemoryAndNothingIsCountedAsGivenBackThatTheManagerHolds() {
        RefusingMemoryManager manager = new RefusingMemoryManager(SIZE, PAGE);
        FlinkSegmentAllocator memory = allocator(manager);
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 1);
        memory.allocate(pages, 1);
        assertThat(memory.tryReserve(1000)).isTrue();
        manager.refusePageReleases = -1;
        manager.refuseReleaseMemory = true;
        manager.refuseReleaseAll = true;

        assertThatThrownBy(memory::close).isInstanceOfSatisfying(CleanupException.class, e -> {
            assertThat(String.join("\n", e.failedSteps()))
                    .contains("give 2 pages back: IllegalStateException: injected: the memory manager refused to take pages back")
                    .contains("give 1000 reserved bytes back: IllegalStateException: injected: the memory manager refused"
                            + " to take reserved bytes back")
                    .contains("release everything of this allocator: IllegalStateException: injected: the memory"
                            + " manager refused releaseAll")
                    .contains("still held: " + (2L * PAGE + 1000) + " bytes were not given back")
                    .doesNotContain("they were given back");
        });
        // releaseAllMemory ran after releaseAll threw: the manager holds the two pages only.
        assertThat(manager.usedBytes()).isEqualTo(2L * PAGE);
        assertThat(memory.usedBytes()).isGreaterThanOrEqualTo(manager.usedBytes());
        assertThat(memory.notGivenBack()).isEqualTo(memory.usedBytes());
    }

    /**
     * A manager shut down (its slot released) has freed every page and reservation itself: the
     * allocator does not give a freed page again, and its close reports the leak (the
     * write still held them) without failing on the shut-down manager's refusals.
     */
    @Test
    void aManagerShutDownUnderTheWriteHasFreedEverythingAndTheCloseDoesNotFailOnIt() {
        MemoryManager manager = MemoryManager.create(SIZE, PAGE);
        FlinkSegmentAllocator memory = allocator(manager);
        List<MemorySegment> pages = new ArrayList<>();
        memory.allocate(pages, 2);
        assertThat(memory.tryReserve(1000)).isTrue();
        memory.release(pages.subList(0, 1));
        manager.shutdown();
        assertThatThrownBy(memory::close)
                .isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("flink allocator of release-test closed with " + (PAGE + 1000) + " bytes still held (1 pages,"
                        + " 1000 reserved bytes); they were given back to Flink's memory manager");
        assertThat(memory.releaseFailures()).isZero();
        assertThat(memory.usedBytes()).isZero();
        assertThat(memory.leakedBytes()).isEqualTo(PAGE + 1000);
    }
}
