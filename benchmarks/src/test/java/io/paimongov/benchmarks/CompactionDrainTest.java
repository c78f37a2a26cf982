package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The drain harness measures what it says: every setting compacts every bucket within its threads. */
class CompactionDrainTest {

    @TempDir Path dir;

    @Test
    void eachSettingDrainsEveryBucketWithinItsThreads() throws Exception {
        CompactionDrain.Result r = CompactionDrain.run(dir, 2_000, 6, 1);
        assertThat(r.medianMillis()).containsOnlyKeys("1", "2", "-1");
        assertThat(r.compactions().values()).allSatisfy(c -> assertThat(c).isGreaterThanOrEqualTo(CompactionDrain.BUCKETS));
        assertThat(r.peakRunning().get("1")).isEqualTo(1);
        assertThat(r.peakRunning().get("2")).isBetween(1L, 2L);
        assertThat(r.peakRunning().get("-1")).isBetween(1L, (long) CompactionDrain.BUCKETS);
        assertThat(r.speedup()).isPositive();
        assertThat(dir.toFile().list()).isEmpty();
    }
}
