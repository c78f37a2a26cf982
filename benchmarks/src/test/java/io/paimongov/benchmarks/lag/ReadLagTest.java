package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny end-to-end run of the benchmark: every setting runs and is analysed, the ratios are
 * finite, the probe's statistics agree with the rows, memory stays within the budget and the work
 * directory is left empty. Nothing here depends on how fast the machine is.
 */
class ReadLagTest {

    @TempDir Path dir;

    @Test
    void tinyRunMeasuresEverySetting() throws Exception {
        List<String> progress = new ArrayList<>();
        LagReport report = ReadLag.run(dir, ReadLag.Sizes.tiny(), line -> {
            progress.add(line);
            System.err.println(line);
        });
        assertThat(report.runs()).extracting(ReadLag.Run::threads).containsExactlyInAnyOrderElementsOf(ReadLag.SETTINGS);
        assertThat(report.medianRatio("2")).isFinite().isPositive();
        assertThat(report.medianRatio("-1")).isFinite().isPositive();
        assertThat(report.peakOverBudget()).isPositive().isLessThanOrEqualTo(1.0);
        assertThat(report.calibration().rowsPerSec()).isPositive();
        assertThat(report.check().drainRowsPerSec()).isPositive();
        for (ReadLag.Run run : report.runs()) {
            assertThat(run.probeMismatches()).as(run.threads()).isZero();
            assertThat(run.series().samples()).as(run.threads()).isNotEmpty();
        }
        Map<String, Object> map = report.toMap();
        assertThat(map).containsKeys("lagRatio2", "lagRatioAll", "peakOverBudget", "lagMillis", "level0Files", "probeMismatches");
        // The fill, the calibration, the first estimate, a line per further check step, the drain rate, a line per run.
        int steps = report.check().step();
        assertThat(steps).isBetween(1, ReadLag.MAX_CHECK_STEPS);
        assertThat(progress).hasSize(4 + (steps - 1) + ReadLag.SETTINGS.size());
        assertThat(progress.stream().filter(l -> l.contains(" of it; checking at "))).hasSize(steps - 1);
        if (steps < ReadLag.MAX_CHECK_STEPS) {
            assertThat(report.check().saturated()).as("the steps stop early only at one that saturated the thread").isTrue();
        }
        assertThat(dir.toFile().list()).isEmpty();
    }
}
