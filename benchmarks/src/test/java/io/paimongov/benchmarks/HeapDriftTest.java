package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P2 relates a spilling write's peak to its budget and to the live heap. The live heap after a
 * collection depends on when the collector runs, and how many samples fit in a write depends on
 * the machine, so neither is asserted: the run gets known heap readings, and the arithmetic is
 * checked on samples worked out by hand.
 */
class HeapDriftTest {

    private static final long MIB = 1L << 20;

    @TempDir Path dir;

    @Test
    void aSpillingWriteStaysInItsBudgetAndTheBaselineIsTakenOffEveryReading() throws Exception {
        long baseline = 500 * MIB;
        long held = 3 * MIB;
        AtomicLong readings = new AtomicLong();
        // The first reading is the baseline before the write opens; every later one (samples, and
        // after close) finds the write's 3 MiB on top of it.
        HeapDrift.Result r = HeapDrift.run(dir, 40_000, 2, 256, 4 * MIB, 20,
                () -> readings.getAndIncrement() == 0 ? baseline : baseline + held);

        assertThat(r.spillCount()).as("40,000 rows of 256 bytes do not fit 4 MiB").isPositive();
        assertThat(r.budgetBytes()).isEqualTo(4 * MIB);
        assertThat(r.peakAccountedBytes()).isPositive().isLessThanOrEqualTo(4 * MIB);
        assertThat(r.heapLeftAfterCloseBytes()).as("the reading after close less the baseline").isEqualTo(held);
        assertThat(r.peakHeapBytes()).as("every sample is 3 MiB over the baseline; no sample, no peak")
                .isEqualTo(r.samples() == 0 ? 0 : held);
        assertThat(readings.get()).as("baseline, one reading per sample, one after close").isEqualTo(r.samples() + 2L);
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theSummaryOfSamplesIsWhatTheyGiveByHand() {
        List<HeapDrift.Sample> samples = List.of(
                new HeapDrift.Sample(3 * MIB, 2 * MIB), // (3 - 2) / 2 = 0.5
                new HeapDrift.Sample(5 * MIB, 4 * MIB), // (5 - 4) / 4 = 0.25
                new HeapDrift.Sample(1 * MIB, 0)); // nothing accounted yet: not in the mean
        HeapDrift.Result r = HeapDrift.summarize(8 * MIB, 4 * MIB, 7, samples, MIB / 2);

        assertThat(r.samples()).isEqualTo(3);
        assertThat(r.peakHeapBytes()).isEqualTo(5 * MIB);
        assertThat(r.meanDrift()).isCloseTo((0.5 + 0.25) / 2, within(1e-12));
        assertThat(r.peakOverBudget()).isEqualTo(0.5);
        assertThat(r.heapDrift()).as("(5 - 4) / 4: the writer kept more than it accounted").isEqualTo(0.25);
        assertThat(r.spillCount()).isEqualTo(7);
        assertThat(r.heapLeftAfterCloseBytes()).isEqualTo(MIB / 2);
    }

    @Test
    void accountingThatReservesMoreThanTheHeapHoldsIsANegativeDrift() {
        HeapDrift.Result r = HeapDrift.summarize(8 * MIB, 4 * MIB, 1, List.of(new HeapDrift.Sample(3 * MIB, 4 * MIB)), 0);
        assertThat(r.heapDrift()).isEqualTo(-0.25);
        assertThat(r.meanDrift()).isEqualTo(-0.25);
    }

    @Test
    void noSampleGivesNoPeakAndNoDrift() {
        HeapDrift.Result r = HeapDrift.summarize(8 * MIB, 4 * MIB, 1, List.of(), 0);
        assertThat(r.samples()).isZero();
        assertThat(r.peakHeapBytes()).isZero();
        assertThat(r.meanDrift()).isZero();
    }
}
