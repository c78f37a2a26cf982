package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P2 relates a spilling write's live heap peak, measured in a child JVM, to its budget and to its
 * accounting. How far the heap peak lies from the accounting depends on the collector, so one real
 * run checks what must hold whatever it finds (the write spilled, the runtime's own peak stayed in
 * the budget, the final reading was taken, the report's ratios are its numbers); the arithmetic is
 * checked on samples worked out by hand, and the reading of the child's output on a given output.
 * {@link LiveHeapSamplerTest} checks the live-heap figure itself against a known held size.
 */
class HeapDriftTest {

    private static final long MIB = 1L << 20;

    @TempDir Path dir;

    @Test
    void aSpillingWriteInAChildJvmIsSampledAndReported() throws Exception {
        HeapDrift.Result r = HeapDrift.run(dir.resolve("p2"), 40_000, 2, 256, 4 * MIB, 200);

        assertThat(r.spillCount()).as("40,000 rows of 256 bytes do not fit 4 MiB").isPositive();
        assertThat(r.budgetBytes()).isEqualTo(4 * MIB);
        assertThat(r.peakAccountedBytes()).isPositive().isLessThanOrEqualTo(4 * MIB);
        assertThat(r.samples()).as("at least the collection after the last row").isPositive();
        assertThat(r.peakHeapBytes()).as("the write holds pages on the heap").isPositive();
        assertThat(r.heapPeakOverBudget()).isEqualTo((double) r.peakHeapBytes() / (4 * MIB));
        assertThat(r.accountedPeakOverBudget()).isEqualTo((double) r.peakAccountedBytes() / (4 * MIB));
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theChildsOutputIsReadIntoTheResult() {
        String output = "noise\nP2_SAMPLE 3145728 2097152\nP2_SAMPLE 5242880 4194304\n"
                + "P2 budgetBytes=8388608 peakAccountedBytes=4194304 spillCount=7 heapLeftAfterCloseBytes=524288\n";
        HeapDrift.Result r = HeapDrift.read(new ChildJvm.Ended(0, false, 10, output));
        assertThat(r.samples()).isEqualTo(2);
        assertThat(r.peakHeapBytes()).isEqualTo(5 * MIB);
        assertThat(r.heapPeakOverBudget()).isEqualTo(5.0 / 8);
        assertThat(r.spillCount()).isEqualTo(7);
        assertThat(r.heapLeftAfterCloseBytes()).isEqualTo(MIB / 2);
        assertThatThrownBy(() -> HeapDrift.read(new ChildJvm.Ended(3, false, 10, "java.lang.OutOfMemoryError: Java heap space\n")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("OutOfMemoryError");
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
        assertThat(r.accountedPeakOverBudget()).isEqualTo(0.5);
        assertThat(r.heapPeakOverBudget()).isEqualTo(5.0 / 8);
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
