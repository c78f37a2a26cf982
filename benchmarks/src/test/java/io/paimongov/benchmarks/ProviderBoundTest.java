package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P2 on a provider whose pages are not plain heap ({@link ProviderBound}): one real run checks what
 * must hold whatever the figures are (the write spilled, the runtime's own peak stayed in the budget,
 * every outside figure was read, the report's ratios are its numbers); reading a child's output
 * checks the arithmetic and that a failed child stays in the report as a failure.
 * {@link CounterSamplerTest} checks the outside figures themselves against known held sizes.
 */
class ProviderBoundTest {

    private static final long MIB = 1L << 20;

    @TempDir Path dir;

    @Test
    void aSpillingWriteOnFlinkPagesIsMeasuredFromOutside() throws Exception {
        ProviderBound.Result r = ProviderBound.run("flink", dir.resolve("p2-flink"), 20_000, 2, 256, 4 * MIB, 200);

        assertThat(r.outcome()).as(r.failure()).isEqualTo(TightHeap.Outcome.SURVIVED);
        assertThat(r.spillCount()).as("20,000 rows of 256 bytes do not fit 4 MiB").isPositive();
        assertThat(r.peakAccountedBytes()).isPositive().isLessThanOrEqualTo(4 * MIB);
        assertThat(r.peakEngineBytes()).as("the write's pages are Flink's").isPositive();
        assertThat(r.peakNativeBytes()).as("Flink's pages are native memory").isPositive();
        assertThat(r.heapSamples()).as("at least the collection after the last row").isPositive();
        assertThat(r.counterSamples()).as("at least the reads at start and stop").isGreaterThanOrEqualTo(2);
        assertThat(r.outsidePeakOverBudget()).isEqualTo((double) (r.peakHeapBytes() + r.peakNativeBytes()) / (4 * MIB));
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theChildsOutputIsReadIntoTheResult() {
        String output = "noise\nP2_PROVIDER peakHeapBytes=1048576 peakNativeBytes=3145728 peakEngineBytes=3145728"
                + " peakAccountedBytes=4194304 heapSamples=9 counterSamples=120 spillCount=3\n";
        ProviderBound.Result r = ProviderBound.read("offheap", 8 * MIB, new ChildJvm.Ended(0, false, 10, output));
        assertThat(r.survived()).isTrue();
        assertThat(r.outsidePeakOverBudget()).as("(1 + 3) / 8").isEqualTo(0.5);
        assertThat(r.heapPeakOverBudget()).isEqualTo(1.0 / 8);
        assertThat(r.nativePeakOverBudget()).isEqualTo(3.0 / 8);
        assertThat(r.enginePeakOverBudget()).isEqualTo(3.0 / 8);
        assertThat(r.accountedPeakOverBudget()).isEqualTo(0.5);
        Map<String, Object> report = r.report();
        assertThat(report).containsEntry("outcome", "SURVIVED").containsEntry("outsidePeakOverBudget", 0.5)
                .containsEntry("heapSamples", 9).containsEntry("counterSamples", 120).containsEntry("spillCount", 3L);
    }

    @Test
    void aChildThatRanOutOfMemoryStaysInTheReportAsAFailure() {
        ProviderBound.Result r = ProviderBound.read("spark", 8 * MIB,
                new ChildJvm.Ended(3, false, 10, "Terminating due to java.lang.OutOfMemoryError: Java heap space\n"));
        assertThat(r.outcome()).isEqualTo(TightHeap.Outcome.OUT_OF_MEMORY);
        assertThat(r.report()).containsEntry("outcome", "OUT_OF_MEMORY").containsEntry("outsidePeakOverBudget", null)
                .containsEntry("budgetBytes", 8 * MIB);
        assertThat((String) r.report().get("failure")).contains("OutOfMemoryError");
        assertThat(ProviderBound.read("spark", 8 * MIB, new ChildJvm.Ended(1, false, 10, "boom\n")).outcome())
                .isEqualTo(TightHeap.Outcome.FAILED);
        assertThat(ProviderBound.read("spark", 8 * MIB, new ChildJvm.Ended(-1, true, 10, "")).outcome())
                .isEqualTo(TightHeap.Outcome.TIMED_OUT);
    }
}
