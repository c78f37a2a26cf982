package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** P3's children run on this JVM's binary and class path, and their endings are told apart. */
class TightHeapTest {

    @TempDir Path dir;

    @Test
    void bothChildrenCompleteWithRoomToSpare() throws Exception {
        TightHeap.Result r = TightHeap.run(dir, new TightHeap.Workload(500, 32, 16L << 20, 128L << 20, 120));
        assertThat(r.governed()).isEqualTo(TightHeap.Outcome.SURVIVED);
        assertThat(r.plain()).isEqualTo(TightHeap.Outcome.SURVIVED);
        assertThat(r.governedSurvived()).isTrue();
        assertThat(r.plainOutOfMemory()).isFalse();
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void aChildThatRunsOutOfHeapIsReportedAsSuch() throws Exception {
        TightHeap.Child plain = TightHeap.child(dir.resolve("plain"), "plain", new TightHeap.Workload(100_000, 256, 8L << 20, 16L << 20, 120));
        assertThat(plain.outcome()).as(plain.output()).isEqualTo(TightHeap.Outcome.OUT_OF_MEMORY);
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
