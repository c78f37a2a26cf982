package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** P1 and P4 produce sane ratios from the settings they claim to compare (values, not timings). */
class WriteThroughputTest {

    @TempDir Path dir;

    @Test
    void governedVsPlainComparesTwoWritesThatDoNotSpill() throws Exception {
        WriteThroughput.P1 p1 = WriteThroughput.governedVsPlain(dir, new WriteThroughput.Workload(5_000, 2, 64, 32L << 20, 1));
        assertThat(p1.ratio()).isPositive().isFinite();
        assertThat(p1.plain().medianMillis()).isPositive();
        assertThat(p1.plain().metrics()).isNull();
        assertThat(p1.plainDefaults().medianMillis()).isPositive();
        assertThat(p1.ratioDefaults()).isEqualTo((double) p1.plainDefaults().medianMillis() / p1.governed().medianMillis());
        assertThat(p1.governed().metrics().inputRows()).isEqualTo(5_000);
        assertThat(p1.governed().metrics().spillCount()).isZero();
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void spillingRunSpillsUnderItsShareOfTheInput() throws Exception {
        WriteThroughput.P4 p4 =
                WriteThroughput.spillingVsInMemory(dir, new WriteThroughput.Workload(10_000, 4, 256, 64L << 20, 1), 60);
        assertThat(p4.inMemory().metrics().spillCount()).isZero();
        assertThat(p4.spilling().metrics().spillCount()).isPositive();
        // The input computed from the rows is what the write counted.
        assertThat(p4.inputBytes()).isEqualTo(p4.spilling().metrics().inputBytes()).isEqualTo(10_000L * (8 + 2 * 8 + 256));
        assertThat(p4.spillBudgetBytes()).isEqualTo((long) (p4.inputBytes() * 0.6));
        assertThat(p4.spilling().metrics().peakReservedBytes()).isLessThanOrEqualTo(p4.spillBudgetBytes());
        assertThat(p4.throughputRatio()).isPositive().isFinite();
        assertThat(p4.countedSpillBytes()).isPositive();
        assertThat(p4.writtenSpillBytesRatio()).isEqualTo((double) p4.writtenSpillBytes() / p4.inputBytes());
        assertThat(p4.countedSpillBytesRatio()).isEqualTo((double) p4.countedSpillBytes() / p4.inputBytes());
        // Two counts of the same files (FileWritesTest bounds how far apart they may be).
        assertThat(p4.writtenSpillBytes()).isCloseTo(p4.countedSpillBytes(), org.assertj.core.data.Percentage.withPercentage(1));
        // The settings beside them: the in-memory write at the spilling budget's row group, and the
        // external sort of as many runs as a spilling write of the same rows spilled.
        assertThat(p4.inMemoryRowGroup().metrics().spillCount()).isZero();
        assertThat(p4.inMemoryRowGroup().metrics().inputRows()).isEqualTo(10_000);
        assertThat(p4.rowGroupBytes()).isBetween(64L << 10, p4.spillBudgetBytes());
        assertThat(p4.spillRuns()).isEqualTo(p4.spilling().metrics().spillCount());
        assertThat(p4.fanIn()).isGreaterThanOrEqualTo(2);
        assertThat(p4.externalSort().metrics()).isNull();
        assertThat(p4.externalSortBytes()).isPositive();
        assertThat(p4.limitRatio()).isEqualTo(
                (double) p4.inMemory().medianMillis() / Math.max(1, p4.inMemory().medianMillis() + p4.externalSort().medianMillis()));
        assertThat(p4.ofLimit()).isEqualTo(p4.throughputRatio() / p4.limitRatio());
        assertThat(p4.rowGroupLimitRatio()).isEqualTo((double) p4.inMemoryRowGroup().medianMillis()
                / Math.max(1, p4.inMemoryRowGroup().medianMillis() + p4.externalSort().medianMillis()));
        assertThat(p4.rowGroupRatio()).isPositive().isFinite();
        assertThat(dir.toFile().list()).isEmpty();
    }
}
