package io.paimongov.runtime.internal.spill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tier arithmetic on its own: a tier is merged only once it holds twice the fan-in (its oldest
 * fan-in runs), so a spill of fewer runs is left whole for the final read, which merges only the
 * smallest runs it must.
 */
class SpillTiersTest {

    private static final int FAN_IN = 4;

    private static List<String> names(List<SpillTiers.Entry<String>> entries) {
        return entries.stream().map(SpillTiers.Entry::run).toList();
    }

    @Test
    void aTierIsMergedOnlyOnceItHoldsTwiceTheFanIn() {
        SpillTiers<String> tiers = new SpillTiers<>(FAN_IN);
        for (int i = 0; i < 2 * FAN_IN - 1; i++) {
            tiers.add("r" + i, 0, 100);
            assertThat(tiers.takeFullTier()).as("%d runs in tier 0", i + 1).isEmpty();
        }
        tiers.add("r7", 0, 100);
        List<SpillTiers.Entry<String>> merged = tiers.takeFullTier();
        assertThat(names(merged)).as("the oldest fan-in runs").containsExactly("r0", "r1", "r2", "r3");
        assertThat(SpillTiers.tierAbove(merged)).isEqualTo(1);
        assertThat(tiers.size()).isEqualTo(FAN_IN);
        assertThat(tiers.takeFullTier()).isEmpty();
    }

    @Test
    void theFinalReadMergesOnlyTheSmallestRunsItMust() {
        SpillTiers<String> tiers = new SpillTiers<>(FAN_IN);
        long[] sizes = {50, 10, 40, 20, 30, 60};
        for (int i = 0; i < sizes.length; i++) {
            tiers.add("r" + i, 0, sizes[i]);
        }
        // 6 runs, at most 4 open at once: merging the 3 smallest leaves 4.
        assertThat(names(tiers.takeSmallestDownTo(FAN_IN))).containsExactly("r1", "r3", "r4");
        assertThat(tiers.size()).isEqualTo(3);
        assertThat(tiers.takeSmallestDownTo(FAN_IN)).isEmpty();
    }
}
