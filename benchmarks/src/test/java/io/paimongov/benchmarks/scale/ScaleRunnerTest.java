package io.paimongov.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.benchmarks.ChildJvm;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cells run through the real child JVMs; the report's numbers come from those runs. */
class ScaleRunnerTest {

    /** Binary row of (INT, INT, STRING of 16 bytes): 8 bytes of null bits, 3 fixed slots of 8, the 16 string bytes. */
    private static final long ROW_BYTES_16 = 8 + 3 * 8 + 16;

    @TempDir Path dir;

    @Test
    void aSmallCellSurvivesGovernedAndPlainWithTheNumbersItWasAsked() throws Exception {
        ScaleCell cell = new ScaleCell(ScaleTable.PK, "parquet", 16, 3_000, 16, 16L << 20);
        ScaleReport report = ScaleRunner.run(new ScaleGrid(List.of(cell), List.of()), dir, new ScaleRunner.Settings(120, 200, 1, 0), line -> {});

        assertThat(report.baselines()).hasSize(1);
        long baseline = report.baselines().get(0).bytes();
        assertThat(baseline).isPositive();
        CellResult r = report.cells().get(0);
        // The heap the child's JVM offers (-Xmx less one survivor space, 1/30 of it) holds budget + baseline, within 2 MiB.
        assertThat(r.xmxBytes() - r.xmxBytes() / 30).isGreaterThanOrEqualTo((16L << 20) + baseline).isLessThan((18L << 20) + baseline);
        assertThat(r.governed().survived()).as(r.governed().reason()).isTrue();
        assertThat(r.plain().survived()).as(r.plain().reason()).isTrue();
        assertThat(r.plainDefaults().survived()).as(r.plainDefaults().reason()).isTrue();
        // One round (the order of more rounds is ScaleRunnerPairTest's).
        assertThat(r.governed().runs()).hasSize(1);
        assertThat(r.plain().runs()).hasSize(1);
        assertThat(r.plainDefaults().runs()).hasSize(1);
        assertThat(r.governed().value("inputRows")).isEqualTo(3_000);
        assertThat(r.governed().value("inputBytes")).isEqualTo(3_000 * ROW_BYTES_16).isEqualTo(cell.inputBytes());
        assertThat(r.governed().value("budgetBytes")).isEqualTo(16L << 20);
        // 2 partitions x 8 buckets, every one written: at least one data file each, in both writes.
        assertThat(r.governed().value("outputFiles")).isGreaterThanOrEqualTo(16);
        assertThat(r.plain().value("outputFiles")).isGreaterThanOrEqualTo(16);
        assertThat(r.accountedPeakOverBudget()).isPositive().isLessThanOrEqualTo(1.0);
        // Every run read at least the collection after its last row.
        assertThat(r.governed().runs()).allSatisfy(run -> assertThat(run.value("heapSamples")).isPositive());
        assertThat(r.plain().runs()).allSatisfy(run -> assertThat(run.value("heapSamples")).isPositive());
        assertThat(r.heapPeakOverBudget()).isPositive();
        // The JVM's file writes outside the warehouse: the spill the write counted, and its spill scope's small lease file.
        assertThat(r.governed().runs()).allSatisfy(run -> assertThat(run.value("spillWrittenBytes"))
                .isBetween(run.value("spillBytes"), run.value("spillBytes") + run.value("spillBytes") / 100 + 4096));
        assertThat(r.throughputRatio()).isPositive();
        assertThat(r.throughputRatioDefaults()).isPositive();
        assertThat(r.heapDrift()).isNotNull();

        Map<String, Object> m = r.toMap();
        assertThat(((Map<?, ?>) m.get("governed")).get("runs")).isEqualTo(1);
        assertThat(((List<?>) ((Map<?, ?>) m.get("plainDefaults")).get("secondsRuns"))).hasSize(1);
        assertThat(m).containsEntry("rows", 3_000).containsEntry("inputBytes", 3_000 * ROW_BYTES_16).containsEntry("writers", 16)
                .containsEntry("partitions", 2).containsEntry("buckets", 8);
        assertThat(report.summary().allCellsSurvived()).isTrue();
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theSpillSeriesHeapHoldsTheInMemoryBudgetTheBaselineAndEightMibMore() {
        long budget = 240L << 20;
        long baseline = 23_778_752;
        long xmx = ScaleRunner.spillXmx(budget, baseline);
        // (251,658,240 + 23,778,752 + 8,388,608) x 30 / 29 = 293,612,689.6..., rounded up to a MiB: 281 MiB.
        assertThat(xmx).isEqualTo(281L << 20);
        // The heap the JVM offers (less one survivor space, 1/30) holds all three.
        assertThat(xmx - xmx / 30).isGreaterThanOrEqualTo(budget + baseline + (8L << 20));
        assertThat(xmx).isGreaterThan(ScaleRunner.xmx(budget, baseline));
    }

    @Test
    void aChildThatRunsOutOfHeapIsNotSurvivedWithTheReason() throws Exception {
        // Plain Paimon with a 64 MiB write buffer in a 24 MiB heap, 300k rows of 256 bytes into one pk writer set.
        ScaleCell cell = new ScaleCell(ScaleTable.PK, "parquet", 8, 300_000, 256, 64L << 20);
        ChildRun plain = ScaleRunner.write("plain", cell, 24L << 20, dir.resolve("plain"), new ScaleRunner.Settings(120, 1000, 1));
        assertThat(plain.survived()).isFalse();
        assertThat(plain.reason()).contains(ChildJvm.OOM);
        assertThat(plain.rowsPerSec()).isNull();
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void failuresAreReadFromTheChildsOutput() {
        assertThat(ChildRun.of(new ChildJvm.Ended(-1, true, 5000, "partial"), 5).reason()).isEqualTo("timed out after 5 s (killed)");
        assertThat(ChildRun.of(new ChildJvm.Ended(3, false, 10, "Terminating due to java.lang.OutOfMemoryError: Java heap space\n"), 5)
                .reason()).startsWith("OutOfMemoryError: ");
        ChildRun refused = ChildRun.of(new ChildJvm.Ended(1, false, 10,
                "SCALE_FAILED ResourceExhaustedException: memory exhausted: 'writer' asked for 5 bytes\n  at x\n"), 5);
        assertThat(refused.survived()).isFalse();
        assertThat(refused.reason()).isEqualTo("ResourceExhaustedException: memory exhausted: 'writer' asked for 5 bytes");
        assertThat(ChildRun.of(new ChildJvm.Ended(0, false, 10, "no result line\n"), 5).reason()).startsWith("exited with code 0");
        ChildRun ok = ChildRun.of(new ChildJvm.Ended(0, false, 10, "noise\nSCALE rows=10 nanos=2000000000\n"), 5);
        assertThat(ok.survived()).isTrue();
        assertThat(ok.rowsPerSec()).isEqualTo(5);
    }

    @Test
    void aRefusalAnywhereInTheCauseChainIsReportedAsTheRefusal() {
        Exception wrapped = new RuntimeException("write failed",
                io.paimongov.spi.ResourceExhaustedException.memory("writer[p=1]", 10, 95, 100));
        assertThat(ScaleChild.reason(wrapped)).startsWith("ResourceExhaustedException: memory exhausted");
        assertThat(ScaleChild.reason(new IllegalStateException("outer", new java.io.IOException("disk"))))
                .isEqualTo("IllegalStateException: outer (cause: IOException: disk)");
    }

    @Test
    void writerCountsThatATableCannotLayOutAreRefused() {
        assertThatThrownBy(() -> new ScaleCell(ScaleTable.PK, "parquet", 12, 10, 16, 1 << 20)).hasMessageContaining("--writers")
                .hasMessageContaining("multiple of 8");
        assertThat(new ScaleCell(ScaleTable.APPEND, "orc", 12, 10, 16, 1 << 20).partitions()).isEqualTo(12);
        assertThatThrownBy(() -> ScaleTable.of("mor")).hasMessageContaining("pk, append, pk-dynamic, pk-dv");
        assertThatThrownBy(() -> new ScaleCell(ScaleTable.PK, "csv", 8, 10, 16, 1 << 20)).hasMessageContaining("--formats");
    }
}
