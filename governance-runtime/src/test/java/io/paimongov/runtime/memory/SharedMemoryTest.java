package io.paimongov.runtime.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.TestAllocators;
import org.junit.jupiter.api.Test;

/**
 * The handle an engine integration holds: its checks and what its accessors read of the writes that
 * joined it. The lending, reclaiming and waiting are {@code MemoryArbiterTest}'s.
 */
class SharedMemoryTest {

    private static final int PAGE = 4096;
    private static final long MIB = 1 << 20;

    @Test
    void aLimitThatIsNotPositiveIsRefusedNamingTheSharedMemory() {
        assertThatThrownBy(() -> SharedMemory.of("slot-0", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the limit of shared memory 'slot-0' must be positive: 0");
        assertThatThrownBy(() -> SharedMemory.of("slot-0", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theAccessorsFollowTheWritesThatJoinAndLeave() {
        SharedMemory slot = SharedMemory.of("slot-1", 4 * MIB);
        assertThat(slot.name()).isEqualTo("slot-1");
        assertThat(slot.limitBytes()).isEqualTo(4 * MIB);
        assertThat(slot.memberCount()).isZero();
        assertThat(slot.poolBytes()).isZero();

        MemoryBudget a = MemoryBudget.member(TestAllocators.bounded(PAGE, 4 * MIB), slot, "a", MIB, 0, () -> false);
        MemoryBudget b = MemoryBudget.member(TestAllocators.bounded(PAGE, 4 * MIB), slot, "b", 2 * MIB, 0, () -> false);
        assertThat(slot.memberCount()).isEqualTo(2);
        assertThat(slot.poolBytes()).as("the shares, 1 MiB and 2 MiB").isEqualTo(3 * MIB);
        assertThat(slot).hasToString("SharedMemory[slot-1, pool 3145728 of 4194304 bytes]");

        a.leavePool();
        assertThat(slot.memberCount()).isEqualTo(1);
        assertThat(slot.poolBytes()).isEqualTo(2 * MIB);
        b.leavePool();
        assertThat(slot.memberCount()).isZero();
        assertThat(slot.poolBytes()).isZero();
    }
}
