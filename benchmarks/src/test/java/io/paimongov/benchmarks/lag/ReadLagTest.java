package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny end-to-end run of the benchmark, every setting in a child JVM: each climbs the same stairs
 * and is analysed, its heap measured from outside, the probe's statistics agree with the rows, and
 * the work directory is left empty. Nothing here depends on how fast the machine is: which stairs a
 * setting sustains at these sizes means nothing.
 */
class ReadLagTest {

    @TempDir Path dir;

    @Test
    void tinyRunClimbsEverySettingOnOneStaircase() throws Exception {
        List<String> progress = new ArrayList<>();
        ReadLag.Sizes sizes = ReadLag.Sizes.tiny().withLines(ReadLag.ALL_LINES);
        LagReport report = ReadLag.run(dir, sizes, line -> {
            progress.add(line);
            System.err.println(line);
        });
        assertThat(report.runs()).extracting(Run::line).containsExactlyInAnyOrderElementsOf(ReadLag.ALL_LINES);
        assertThat(report.orders()).hasSize(1);
        assertThat(report.orders().get(0)).containsExactlyInAnyOrderElementsOf(ReadLag.ALL_LINES);
        assertThat(report.runs()).extracting(Run::line).containsExactlyElementsOf(report.orders().get(0));
        for (Run run : report.runs()) {
            assertThat(run.failure()).as(run.line()).isNull();
            assertThat(run.probeMismatches()).as(run.line()).isZero();
            assertThat(run.series().samples()).as(run.line()).isNotEmpty();
            assertThat(run.verdicts()).as(run.line()).isNotEmpty().hasSizeLessThanOrEqualTo(sizes.maxStairs());
            assertThat(run.rates()).isEqualTo(report.stairs().rates());
            assertThat(run.heapSamples()).as(run.line()).isPositive();
            assertThat(run.baselineBytes()).as(run.line()).isPositive();
            assertThat(run.peakReservedBytes() != null).as(run.line()).isEqualTo(LagChild.governed(run.line()));
            // A run stops at its first stair that was not steady, and only there.
            for (int i = 0; i + 1 < run.verdicts().size(); i++) {
                assertThat(run.verdicts().get(i).steady()).as(run.line() + " stair " + i).isTrue();
            }
        }
        assertThat(report.anchor().rowsPerSec()).isPositive();
        Map<String, Object> map = report.toMap();
        assertThat(map).containsKeys("maxSteadyRowsPerSec", "commonRowsPerSec", "peakOverBudget", "accountedPeakOverBudget", "liveHeap");
        assertThat((Double) map.get("peakOverBudget")).isEqualTo(report.peakOverBudget(), org.assertj.core.api.Assertions.within(0.005));
        // The fill, the anchor, the staircase, a line per run.
        assertThat(progress).hasSize(3 + ReadLag.ALL_LINES.size());
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void eachRepetitionRotatesTheOrderByOne() {
        List<String> lines = List.of("1", "2", "-1", "plain");
        assertThat(ReadLag.rotated(lines, 0)).containsExactly("1", "2", "-1", "plain");
        assertThat(ReadLag.rotated(lines, 1)).containsExactly("2", "-1", "plain", "1");
        assertThat(ReadLag.rotated(lines, 6)).containsExactly("-1", "plain", "1", "2");
    }
}
