package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P3's children run on this JVM's binary and class path, their endings are told apart, each
 * surviving child reports its live heap peak, and plain Paimon's child writes with the governed
 * write's row group.
 */
class TightHeapTest {

    @TempDir Path dir;

    @Test
    void everyChildCompletesWithRoomToSpareAndReportsItsHeap() throws Exception {
        TightHeap.Result r = TightHeap.run(dir, new TightHeap.Workload(500, 32, 16L << 20, 128L << 20, 120));
        for (TightHeap.Child c : new TightHeap.Child[] {r.governed(), r.plain(), r.plainDefaults()}) {
            assertThat(c.outcome()).as(c.output()).isEqualTo(TightHeap.Outcome.SURVIVED);
            assertThat(c.heapSamples()).as("at least the collection after the last row").isPositive();
            assertThat(c.heapPeakOverBudget(16L << 20)).isEqualTo((double) c.liveHeapPeakBytes() / (16L << 20));
        }
        assertThat(r.governedSurvived()).isTrue();
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void plainPaimonGetsTheGovernedRowGroup(@TempDir Path warehouse) throws Exception {
        long budget = 24L << 20;
        var created = BenchTables.create(warehouse, BenchTables.Shape.append(TightHeap.BUCKETS));
        var plain = TightHeap.plainTable(created, budget);
        assertThat(plain.options()).containsEntry("file.block-size", Long.toString(budget / 64))
                .containsEntry("write-buffer-size", Long.toString(budget)).containsEntry("async-file-write", "false");
    }

    @Test
    void aChildThatRunsOutOfHeapIsReportedAsSuch() throws Exception {
        TightHeap.Child plain = TightHeap.child(dir.resolve("plain"), TightHeap.PLAIN_DEFAULTS, new TightHeap.Workload(100_000, 256, 8L << 20, 16L << 20, 120));
        assertThat(plain.outcome()).as(plain.output()).isEqualTo(TightHeap.Outcome.OUT_OF_MEMORY);
        assertThat(plain.heapPeakOverBudget(8L << 20)).isNull();
        assertThat(plain.output()).contains("OutOfMemoryError");
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void outcomesFromExitCodeAndOutput() {
        assertThat(TightHeap.classify(0, "SURVIVED rows=5\n")).isEqualTo(TightHeap.Outcome.SURVIVED);
        assertThat(TightHeap.classify(3, "Terminating due to java.lang.OutOfMemoryError: Java heap space\n"))
                .isEqualTo(TightHeap.Outcome.OUT_OF_MEMORY);
        assertThat(TightHeap.classify(1, "Exception in thread \"main\" java.lang.IllegalStateException\n"))
                .isEqualTo(TightHeap.Outcome.FAILED);
        assertThat(TightHeap.classify(0, "no marker\n")).isEqualTo(TightHeap.Outcome.FAILED);
    }
}
