package io.paimongov.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GovernanceOptionsTest {

    @TempDir Path dir;

    @Test
    void defaults() {
        GovernanceOptions o = GovernanceOptions.defaults();
        assertThat(o.budgetBytes()).isEqualTo(64L << 20);
        assertThat(o.pageSize()).isEqualTo(64 << 10);
        assertThat(o.spillMaxBytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(o.sweepOrphans()).isTrue();
        assertThat(o.memorySharing()).isEqualTo(MemorySharing.FAIR);
        assertThat(o.reclaimWaitMillis()).isEqualTo(1000);
        assertThat(o.provider()).isEmpty();
        assertThat(o.spillDirs()).containsExactly(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize());
    }

    @Test
    void acceptsEveryKey() {
        GovernanceOptions o =
                GovernanceOptions.of(
                        Map.of(
                                GovernanceOptions.PROVIDER, "heap",
                                GovernanceOptions.MEMORY_BUDGET, "1g",
                                GovernanceOptions.PAGE_SIZE, "32kb",
                                GovernanceOptions.SPILL_DIRS, dir + "," + dir,
                                GovernanceOptions.SPILL_MAX_BYTES, "10G",
                                GovernanceOptions.SPILL_SWEEP, "false",
                                "governance.flink.weight", "3"));
        assertThat(o.provider()).contains("heap");
        assertThat(o.budgetBytes()).isEqualTo(1L << 30);
        assertThat(o.pageSize()).isEqualTo(32 << 10);
        assertThat(o.spillDirs()).hasSize(2);
        assertThat(o.spillMaxBytes()).isEqualTo(10L << 30);
        assertThat(o.sweepOrphans()).isFalse();
        assertThat(o.raw("governance.flink.weight")).contains("3");
    }

    @Test
    void compactionThreadsComeFromTheGovernanceKeyElseTheTableElseOne() {
        GovernanceOptions none = GovernanceOptions.defaults();
        assertThat(none.compactionTaskThreads()).isEmpty();
        assertThat(none.compactionTaskThreads(Map.of())).isEqualTo(1);
        assertThat(none.compactionTaskThreads(Map.of("compaction.task-threads", "-1"))).isEqualTo(-1);
        assertThat(none.compactionMaxThreads()).isEqualTo(8);
        GovernanceOptions two = GovernanceOptions.of(Map.of(GovernanceOptions.COMPACTION_TASK_THREADS, "2"));
        assertThat(two.compactionTaskThreads(Map.of("compaction.task-threads", "4"))).isEqualTo(2);
        assertThatThrownBy(() -> none.compactionTaskThreads(Map.of("compaction.task-threads", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'compaction.task-threads' = '0' must be 1 (one thread), a number above 1 (a shared pool), or -1 (one thread per active bucket)");
    }

    @Test
    void unknownRuntimeKeysAreRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of("governance.memory.budjet", "1g")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'governance.memory.budjet'; known keys: governance.provider, governance.memory.budget");
    }

    @Test
    void budgetMinimumFollowsThePageSize() {
        assertThatThrownBy(
                        () ->
                                GovernanceOptions.of(
                                        Map.of(GovernanceOptions.PAGE_SIZE, "1m", GovernanceOptions.MEMORY_BUDGET, "4m")))
                .hasMessage("'governance.memory.budget' = '4m' is below the minimum of 8m (8 pages of 1m)");
    }

    /**
     * Without a page size (or with {@code auto}) the budget holds at least 192 pages: the largest
     * power of two at most a 192nd of it, from 4k to 64k.
     */
    @Test
    void anAutoPageSizeLeavesTheBudgetAtLeast192Pages() {
        Map<String, Integer> expected = Map.of("64m", 64 << 10, "12m", 64 << 10, "11m", 32 << 10, "3m", 16 << 10,
                "1680k", 8 << 10, "1m", 4 << 10, "32k", 4 << 10, "1g", 64 << 10);
        expected.forEach((budget, page) -> {
            assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, budget)).pageSize()).as(budget).isEqualTo(page);
            assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, budget, GovernanceOptions.PAGE_SIZE, "AUTO")).pageSize())
                    .as(budget).isEqualTo(page);
        });
        assertThat(GovernanceOptions.defaults().pageSize()).isEqualTo(64 << 10);
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "3m", GovernanceOptions.PAGE_SIZE, "64k")).pageSize())
                .isEqualTo(64 << 10);
    }

    @Test
    void aBadPageSizeIsReportedBeforeABadBudget() {
        assertThatThrownBy(() -> GovernanceOptions.of(
                        Map.of(GovernanceOptions.MEMORY_BUDGET, "1k", GovernanceOptions.PAGE_SIZE, "48k")))
                .hasMessage("'governance.memory.page-size' = '48k' must be 'auto' or a power of two from 4k to 16m");
    }

    @Test
    void providersAreToldTheValidatedValuesAndOnlyTheKeysTheRuntimeDoesNotOwn() throws Exception {
        ProviderOptions told = GovernanceOptions.of(Map.of(
                        GovernanceOptions.PROVIDER, "heap",
                        GovernanceOptions.MEMORY_BUDGET, "1g",
                        GovernanceOptions.PAGE_SIZE, "32k",
                        GovernanceOptions.SPILL_DIRS, dir.toString(),
                        GovernanceOptions.SPILL_MAX_BYTES, "10g",
                        GovernanceOptions.SPILL_SWEEP, "false",
                        GovernanceOptions.COMPACTION_TASK_THREADS, "2",
                        "governance.flink.weight", "3"))
                .providerOptions();
        assertThat(told.budgetBytes()).isEqualTo(1L << 30);
        assertThat(told.pageSize()).isEqualTo(32 << 10);
        assertThat(told.spillDirs()).containsExactly(dir.toRealPath());
        assertThat(told.spillDirsGiven()).isTrue();
        assertThat(told.spillMaxBytes()).isEqualTo(10L << 30);
        assertThat(told.providerKeys()).isEqualTo(Map.of("governance.flink.weight", "3"));
    }

    @Test
    void theSharingPolicyAndTheReclaimWaitAreRead() {
        GovernanceOptions o = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_SHARING, "None", GovernanceOptions.MEMORY_RECLAIM_WAIT, "250ms"));
        assertThat(o.memorySharing()).isEqualTo(MemorySharing.NONE);
        assertThat(o.reclaimWaitMillis()).isEqualTo(250);
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_RECLAIM_WAIT, "60s")).reclaimWaitMillis()).isEqualTo(60_000);
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_RECLAIM_WAIT, "0ms")).reclaimWaitMillis()).isZero();
    }

    @Test
    void aMemberOfASharedMemoryTellsItsProviderThePoolsLimitWithItsOwnPageSize() throws Exception {
        GovernanceOptions o = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, "2m",
                GovernanceOptions.SPILL_DIRS, dir.toString(),
                GovernanceOptions.SPILL_MAX_BYTES, "10g",
                "governance.flink.weight", "3"));
        ProviderOptions told = o.providerOptions(64L << 20);
        assertThat(told.budgetBytes()).isEqualTo(64L << 20);
        assertThat(told.pageSize()).as("auto, from the write's own 2m").isEqualTo(8 << 10).isEqualTo(o.pageSize());
        assertThat(told.spillDirs()).containsExactly(dir.toRealPath());
        assertThat(told.spillDirsGiven()).isTrue();
        assertThat(told.spillMaxBytes()).isEqualTo(10L << 30);
        assertThat(told.providerKeys()).isEqualTo(Map.of("governance.flink.weight", "3"));
    }

    @Test
    void providersAreToldWhenTheSpillDirsAreTheDefault() {
        ProviderOptions told = GovernanceOptions.defaults().providerOptions();
        assertThat(told.spillDirsGiven()).isFalse();
        assertThat(told.spillMaxBytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(told.budgetBytes()).isEqualTo(64L << 20);
        assertThat(told.pageSize()).isEqualTo(64 << 10);
    }

    @Test
    void sizes() {
        assertThat(Sizes.parse("k", "123")).isEqualTo(123);
        assertThat(Sizes.parse("k", "64m")).isEqualTo(64L << 20);
        assertThat(Sizes.parse("k", "2 GiB")).isEqualTo(2L << 30);
        assertThat(Sizes.parse("k", "1t")).isEqualTo(1L << 40);
        assertThat(Sizes.format(64L << 20)).isEqualTo("64m");
        assertThat(Sizes.format(1536 << 10)).isEqualTo("1536k");
        assertThat(Sizes.format(1000)).isEqualTo("1000");
    }
}
