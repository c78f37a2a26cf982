package io.paimongov.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.runtime.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PROV.7 for Flink: a budget larger than the managed memory Flink has for the write is refused at
 * open, naming the key and both sizes, and takes nothing from the manager. The sizes in the
 * expected messages are the ones the test gave the manager and the slot.
 */
class FlinkBudgetBoundTest {

    private static final int PAGE = 32 << 10;
    private static final long MANAGER = 4L << 20;

    @TempDir Path dir;

    private ProviderOptions budget(long bytes) {
        return ProviderOptions.builder(bytes, PAGE).spillDirs(List.of(dir), true).build();
    }

    @Test
    void aBudgetLargerThanTheSlotsShareIsRefusedWithBothNumbers() {
        MemoryManager manager = MemoryManager.create(MANAGER, PAGE);
        EngineEnvironment env = EngineEnvironment.builder()
                .with(MemoryManager.class, manager)
                .with(FlinkSlot.class, new FlinkSlot(1L << 20, List.of(dir)))
                .build();
        assertThatThrownBy(() -> new FlinkGovernanceProvider().open(budget(2L << 20), env))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'governance.memory.budget' = 2097152 bytes is larger than the managed memory"
                        + " Flink gives this write (its operator's share of the slot): 1048576 bytes;");
        assertThat(manager.availableMemory()).isEqualTo(MANAGER);
    }

    @Test
    void withoutASlotABudgetLargerThanTheManagerIsRefused() {
        MemoryManager manager = MemoryManager.create(MANAGER, PAGE);
        EngineEnvironment env = EngineEnvironment.builder().with(MemoryManager.class, manager).build();
        assertThatThrownBy(() -> new FlinkGovernanceProvider().open(budget(MANAGER + PAGE), env))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'governance.memory.budget' = " + (MANAGER + PAGE) + " bytes is larger than"
                        + " the managed memory of the slot's memory manager: " + MANAGER + " bytes;");
    }

    @Test
    void aBudgetOfExactlyTheSlotsShareOpens() {
        MemoryManager manager = MemoryManager.create(MANAGER, PAGE);
        EngineEnvironment env = EngineEnvironment.builder()
                .with(MemoryManager.class, manager)
                .with(FlinkSlot.class, new FlinkSlot(1L << 20, List.of(dir)))
                .build();
        EngineResources resources = new FlinkGovernanceProvider().open(budget(1L << 20), env);
        assertThat(resources.memory().capacityBytes()).isEqualTo(1L << 20);
        resources.close();
    }
}
