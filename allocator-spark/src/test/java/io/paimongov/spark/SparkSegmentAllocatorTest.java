package io.paimongov.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.runtime.config.GovernanceOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.memory.MemorySegment;
import org.apache.spark.memory.TaskMemoryManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The consumer against a real TaskMemoryManager: all-or-nothing grants and what spill gives back. */
class SparkSegmentAllocatorTest {

    @TempDir Path dir;

    @Test
    void aPartialGrantFromSparkIsGivenBackAndThePageRefused() {
        try (SparkStandaloneEngine engine = new SparkStandaloneEngine(1 << 20, dir)) {
            TaskMemoryManager tmm = engine.environment().find(TaskMemoryManager.class).orElseThrow();
            StubbornConsumer other = new StubbornConsumer(tmm);
            other.acquireMemory((1 << 20) - (48 << 10));
            SparkSegmentAllocator memory = new SparkSegmentAllocator(tmm, 16 << 10, 1 << 20);
            List<MemorySegment> pages = new ArrayList<>();

            assertThatThrownBy(() -> memory.allocate(pages, 4)).isInstanceOf(ResourceExhaustedException.class);
            assertThat(pages).isEmpty();
            assertThat(memory.consumer().getUsed()).isZero();
            assertThat(engine.engineUsedBytes()).isEqualTo((1 << 20) - (48 << 10));
            memory.allocate(pages, 3);
            assertThat(memory.consumer().getUsed()).isEqualTo(48 << 10);
            memory.release(pages);
            other.freeMemory(other.getUsed());
            memory.close();
            assertThat(engine.engineUsedBytes()).isZero();
        }
    }

    @Test
    void spillAsksTheReliefAndReturnsWhatWentBackToSparkButNotWhenItIsTheRequester() {
        try (SparkStandaloneEngine engine = new SparkStandaloneEngine(1 << 20, dir)) {
            TaskMemoryManager tmm = engine.environment().find(TaskMemoryManager.class).orElseThrow();
            SparkSegmentAllocator memory = new SparkSegmentAllocator(tmm, 16 << 10, 1 << 20);
            List<MemorySegment> pages = new ArrayList<>();
            memory.allocate(pages, 8);
            memory.bindRelief(bytes -> {
                memory.release(new ArrayList<>(pages.subList(0, 4)));
                return 4 * (16 << 10);
            });

            assertThat(memory.spill(1 << 20, memory.consumer())).as("asked while it is the requester").isZero();
            assertThat(memory.spill(1 << 20, new StubbornConsumer(tmm))).isEqualTo(4 * (16 << 10));
            assertThat(engine.engineUsedBytes()).isEqualTo(4 * (16 << 10));
            assertThat(memory.givenBackBySpill()).isEqualTo(4 * (16 << 10));
            assertThatThrownBy(memory::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("still held");
            assertThat(engine.engineUsedBytes()).isZero();
        }
    }

    /** PROV.7: a budget above the executor's unified memory is refused at open, naming both, and nothing is taken. */
    @Test
    void aBudgetAboveWhatSparkCanGiveATaskIsRefusedAtOpen(@TempDir Path tmp) {
        try (SparkStandaloneEngine engine = new SparkStandaloneEngine(4 << 20, tmp)) {
            GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "8m"));
            assertThatThrownBy(() -> new SparkGovernanceProvider().open(options.providerOptions(), engine.environment()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("'governance.memory.budget' = " + (8 << 20) + " bytes is larger than Spark can give a task")
                    .hasMessageContaining("is " + (4 << 20) + " bytes");
            assertThat(engine.engineUsedBytes()).isZero();
            GovernanceOptions fits = GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "4m"));
            assertThatCode(() -> new SparkGovernanceProvider().open(fits.providerOptions(), engine.environment()).close())
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void withoutATaskTheProviderSaysWhatToAdd() {
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "1m"));
        assertThatThrownBy(() -> new SparkGovernanceProvider().open(options.providerOptions(), EngineEnvironment.standalone()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("provider 'spark' needs a org.apache.spark.TaskContext in the EngineEnvironment; add it with"
                        + " EngineEnvironment.builder().with(TaskContext.class, value)");
        assertThatThrownBy(() -> new SparkGovernanceProvider().open(
                        options.with("governance.spark.floor", "1m").providerOptions(), EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.spark.floor'");
    }

}
