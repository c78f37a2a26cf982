package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** P2 samples a spilling write and relates its peak to the budget and to the live heap. */
class HeapDriftTest {

    @TempDir Path dir;

    @Test
    void aSpillingWriteIsSampledAndStaysInItsBudget() throws Exception {
        HeapDrift.Result r = HeapDrift.run(dir, 40_000, 2, 256, 4L << 20, 20);
        assertThat(r.spillCount()).isPositive();
        assertThat(r.samples()).isPositive();
        assertThat(r.peakOverBudget()).isPositive().isLessThanOrEqualTo(1.0);
        assertThat(r.peakHeapBytes()).isPositive();
        assertThat(r.heapDrift()).isFinite().isGreaterThan(-1.0);
        assertThat(r.meanDrift()).isFinite();
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void liveHeapIsReadAfterACollection() {
        assertThat(HeapDrift.liveHeapBytes()).isPositive();
    }
}
