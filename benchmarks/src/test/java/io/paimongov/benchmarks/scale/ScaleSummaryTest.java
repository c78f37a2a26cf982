package io.paimongov.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The verdicts computed from given cells, against values worked out by hand from the same numbers. */
class ScaleSummaryTest {

    private static final long BUDGET = 1000;

    /** A governed run of {@code nanos} with an accounted peak, a live heap above its baseline, spill and input bytes. */
    private static ChildRun governed(long nanos, long peak, long liveAboveBaseline, long spill, long input) {
        Map<String, Long> v = new HashMap<>();
        v.put("rows", 1000L);
        v.put("nanos", nanos);
        v.put("budgetBytes", BUDGET);
        v.put("peakReservedBytes", peak);
        v.put("heapBaselineBytes", 5000L);
        v.put("liveHeapPeakBytes", 5000L + liveAboveBaseline);
        v.put("spillBytes", spill);
        // The JVM saw 10% more written than the write counted (a made-up gap, to tell the two apart).
        v.put("spillWrittenBytes", spill + spill / 10);
        v.put("inputBytes", input);
        v.put("heapSamples", 7L);
        return ChildRun.survived(nanos / 1_000_000 + 100, v);
    }

    private static ChildRun plain(long nanos) {
        return plain(nanos, 0);
    }

    /** A plain run of {@code nanos} whose live heap peak is {@code liveAboveBaseline} above its baseline. */
    private static ChildRun plain(long nanos, long liveAboveBaseline) {
        return ChildRun.survived(nanos / 1_000_000 + 100, Map.of("rows", 1000L, "nanos", nanos, "heapBaselineBytes", 5000L,
                "liveHeapPeakBytes", 5000L + liveAboveBaseline));
    }

    private static ChildRun failed(String reason) {
        return ChildRun.failed(reason, 1234);
    }

    /** A cell whose plain sides, with the governed settings and with defaults, ran alike. */
    private static CellResult cell(int writers, ChildRun governed, ChildRun plain) {
        return cell(writers, governed, plain, plain);
    }

    private static CellResult cell(int writers, ChildRun governed, ChildRun plain, ChildRun plainDefaults) {
        return new CellResult(new ScaleCell(ScaleTable.PK, "parquet", writers, 1000, 16, BUDGET), 100, 2000, RunSeries.of(governed),
                RunSeries.of(plain), RunSeries.of(plainDefaults));
    }

    private static CellResult cell(int writers, RunSeries governed, RunSeries plain) {
        return new CellResult(new ScaleCell(ScaleTable.PK, "parquet", writers, 1000, 16, BUDGET), 100, 2000, governed, plain, plain);
    }

    private static SpillResult spill(ChildRun inMemory, ChildRun spilling) {
        return spill(RunSeries.of(inMemory), RunSeries.of(spilling));
    }

    private static SpillResult spill(RunSeries inMemory, RunSeries spilling) {
        return new SpillResult(new ScaleCell(ScaleTable.PK, "parquet", 8, 1000, 16, 50), 2000, 100, ScaleRunner.spillXmx(2000, 100), inMemory, spilling);
    }

    private static RunSeries series(ChildRun... runs) {
        return new RunSeries(List.of(runs));
    }

    @Test
    void everyVerdictFromHandComputedCells() {
        // Cell 1: plain 1.0 s, governed 0.8 s -> ratio 1.25; accounted peak 900/1000 = 0.9; live heap 720/1000 = 0.72;
        //         drift 720/900 - 1 = -0.2; spill 300/1000 = 0.3.
        // Cell 2: plain OOM, governed 2.0 s; accounted peak 1000/1000 = 1.0; live heap 1100/1000 = 1.1 (over the budget, which
        //         the accounting cannot show); drift 1100/1000 - 1 = +0.1; spill 1500/1000 = 1.5.
        // Cell 3: both fail: stays in the verdicts as a failure (governedNeverWorse false), fails allCellsSurvived.
        List<CellResult> cells = List.of(
                cell(8, governed(800_000_000L, 900, 720, 300, 1000), plain(1_000_000_000L)),
                cell(256, governed(2_000_000_000L, 1000, 1100, 1500, 1000), failed("OutOfMemoryError: Java heap space")),
                cell(2048, failed("timed out after 5 s (killed)"), failed("OutOfMemoryError: Java heap space")));
        // Spill: in memory 1.0 s, spilling 2.5 s -> 0.4, spill 1100/1000 = 1.1; second: in memory 1.0 s, spilling failed -> 0.
        List<SpillResult> spills = List.of(
                spill(governed(1_000_000_000L, 500, 400, 0, 1000), governed(2_500_000_000L, 50, 40, 1100, 1000)),
                spill(governed(1_000_000_000L, 500, 400, 0, 1000), failed("ResourceExhaustedException: memory exhausted")));

        ScaleSummary s = ScaleSummary.of(cells, spills);

        assertThat(cells.get(0).throughputRatio()).isEqualTo(1.25);
        assertThat(cells.get(0).heapDrift()).isCloseTo(-0.2, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(s.allCellsSurvived()).isFalse();
        assertThat(s.governedNeverWorse()).isFalse();
        assertThat(s.governedNeverWorseDefaults()).isFalse();
        assertThat(ScaleSummary.of(cells.subList(0, 2), spills).governedNeverWorse()).as("without cell 3").isTrue();
        assertThat(s.maxHeapDriftAbs()).isEqualTo(0.2);
        assertThat(cells.get(0).heapPeakOverBudget()).isEqualTo(0.72);
        assertThat(s.maxHeapPeakOverBudget()).isEqualTo(1.1);
        assertThat(s.maxAccountedPeakOverBudget()).isEqualTo(1.0);
        assertThat(s.minHeapSamples()).isEqualTo(7);
        assertThat(s.minSpillThroughputRatio()).isEqualTo(0.0);
        assertThat(s.maxCountedSpillBytesRatio()).isEqualTo(1.5);
        // Written 1650 over the input bytes the cell's rows make (1000 rows of (INT, INT, 16-byte STRING): 48 bytes each, 48,000).
        assertThat(s.maxWrittenSpillBytesRatio()).isEqualTo(CellResult.round(1650.0 / 48_000));
    }

    @Test
    void governedSlowerThanNinetyPercentOfPlainIsWorse() {
        // plain 1.0 s, governed 1.2 s -> 0.83 < 0.9
        List<CellResult> cells = List.of(cell(8, governed(1_200_000_000L, 900, 900, 0, 1000), plain(1_000_000_000L)));
        ScaleSummary s = ScaleSummary.of(cells, List.of());
        assertThat(s.allCellsSurvived()).isTrue();
        assertThat(s.governedNeverWorse()).isFalse();
        assertThat(s.minSpillThroughputRatio()).isNull();
        assertThat(s.maxCountedSpillBytesRatio()).isEqualTo(0.0);
        assertThat(s.maxWrittenSpillBytesRatio()).isEqualTo(0.0);
    }

    @Test
    void governedFailingWherePlainSurvivesIsWorse() {
        List<CellResult> cells = List.of(cell(8, failed("ResourceExhaustedException: memory exhausted"), plain(1_000_000_000L)));
        ScaleSummary s = ScaleSummary.of(cells, List.of());
        assertThat(s.allCellsSurvived()).isFalse();
        assertThat(s.governedNeverWorse()).isFalse();
        assertThat(s.maxHeapDriftAbs()).isNull();
        assertThat(s.maxHeapPeakOverBudget()).isNull();
        assertThat(s.maxAccountedPeakOverBudget()).isNull();
        assertThat(s.minHeapSamples()).isNull();
    }

    @Test
    void aRatioOfExactlyNinetyPercentIsNotWorse() {
        // plain 0.9 s, governed 1.0 s -> 0.9
        List<CellResult> cells = List.of(cell(8, governed(1_000_000_000L, 900, 900, 0, 1000), plain(900_000_000L)));
        assertThat(ScaleSummary.of(cells, List.of()).governedNeverWorse()).isTrue();
    }

    @Test
    void repeatedRunsCompareMediansAndBoundTheWorstRun() {
        // Governed 1.3 s, 1.0 s, 0.9 s -> median 1.0 s; drifts 810/900-1 = -0.1, 1008/900-1 = +0.12, 855/900-1 = -0.05 -> worst +0.12;
        // peaks 0.9; spill 100/1000, 200/1000, 0 -> worst 0.2. Plain 1.2 s, 1.1 s, 0.95 s -> median 1.1 s. Ratio 1.1 / 1.0 = 1.1.
        RunSeries governed = series(governed(1_300_000_000L, 900, 810, 100, 1000), governed(1_000_000_000L, 900, 1008, 200, 1000),
                governed(900_000_000L, 900, 855, 0, 1000));
        RunSeries plain = series(plain(1_200_000_000L), plain(1_100_000_000L), plain(950_000_000L));
        CellResult c = cell(8, governed, plain);
        assertThat(c.throughputRatio()).isCloseTo(1.1, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(c.heapDrift()).isCloseTo(0.12, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(c.countedSpillBytesRatio()).isEqualTo(0.2);
        assertThat(c.writtenSpillBytesRatio()).isEqualTo(220.0 / 48_000);
        assertThat(c.accountedPeakOverBudget()).isEqualTo(0.9);
        // Live heap 810, 1008, 855 of 1000: the worst run is 1.008.
        assertThat(c.heapPeakOverBudget()).isEqualTo(1.008);
        assertThat(governed.median().value("nanos")).isEqualTo(1_000_000_000L);
        // With an even count the faster of the two middle runs: 0.95 s of {0.95, 1.1}.
        assertThat(series(plain(1_100_000_000L), plain(950_000_000L)).value("nanos")).isEqualTo(950_000_000L);

        // Spill: in memory 1.0, 1.2, 1.1 s -> 1.1 s; spilling 2.0, 2.2, 1.6 s -> 2.0 s; ratio 0.55.
        SpillResult sp = spill(series(governed(1_000_000_000L, 500, 400, 0, 1000), governed(1_200_000_000L, 500, 400, 0, 1000),
                        governed(1_100_000_000L, 500, 400, 0, 1000)),
                series(governed(2_000_000_000L, 50, 40, 900, 1000), governed(2_200_000_000L, 50, 40, 1100, 1000),
                        governed(1_600_000_000L, 50, 40, 1000, 1000)));
        assertThat(sp.throughputRatio()).isCloseTo(0.55, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(sp.countedSpillBytesRatio()).isEqualTo(1.1);
    }

    @Test
    void aSeriesWithOneFailedRunHasNotSurvived() {
        RunSeries governed = series(governed(1_000_000_000L, 900, 900, 0, 1000), failed("OutOfMemoryError: Java heap space"),
                governed(1_000_000_000L, 900, 900, 0, 1000));
        CellResult c = cell(8, governed, series(plain(1_000_000_000L), plain(1_000_000_000L), plain(1_000_000_000L)));
        assertThat(governed.survived()).isFalse();
        assertThat(governed.reason()).isEqualTo("OutOfMemoryError: Java heap space");
        assertThat(c.throughputRatio()).isNull();
        assertThat(c.heapDrift()).isNull();
        ScaleSummary s = ScaleSummary.of(List.of(c), List.of());
        assertThat(s.allCellsSurvived()).isFalse();
        assertThat(s.governedNeverWorse()).isFalse();
        // A spilling series with a failed run delivered nothing: ratio 0.
        SpillResult sp = spill(series(plain(1_000_000_000L), plain(1_000_000_000L)),
                series(governed(2_000_000_000L, 50, 40, 900, 1000), failed("timed out after 5 s (killed)")));
        assertThat(sp.throughputRatio()).isEqualTo(0.0);
    }

    @Test
    void eachPlainLineIsJudgedOnItsOwn() {
        // Plain with the governed settings 1.0 s (ratio 1.0), with its defaults out of memory; governed 1.0 s.
        CellResult c = cell(8, governed(1_000_000_000L, 900, 600, 0, 1000), plain(1_000_000_000L, 300), failed("OutOfMemoryError: Java heap space"));
        assertThat(c.throughputRatio()).isEqualTo(1.0);
        assertThat(c.throughputRatioDefaults()).isNull();
        assertThat(c.heapPeakOverBudget(c.plain())).isEqualTo(0.3);
        assertThat(c.heapPeakOverBudget(c.plainDefaults())).isNull();
        ScaleSummary s = ScaleSummary.of(List.of(c), List.of());
        assertThat(s.governedNeverWorse()).isTrue();
        assertThat(s.governedNeverWorseDefaults()).isTrue();
        // Plain with the governed settings twice as fast: worse; with defaults it failed: not worse than that.
        CellResult slower = cell(8, governed(2_000_000_000L, 900, 600, 0, 1000), plain(1_000_000_000L), failed("OutOfMemoryError: x"));
        assertThat(ScaleSummary.of(List.of(slower), List.of()).governedNeverWorse()).isFalse();
        assertThat(ScaleSummary.of(List.of(slower), List.of()).governedNeverWorseDefaults()).isTrue();
        assertThat(c.toMap()).containsKeys("plain", "plainDefaults", "throughputRatio", "throughputRatioDefaults");
        @SuppressWarnings("unchecked")
        Map<String, Object> governed = (Map<String, Object>) c.toMap().get("governed");
        assertThat(governed).containsEntry("heapPeakOverBudget", 0.6).containsEntry("accountedPeakOverBudget", 0.9)
                .containsEntry("heapSamples", 7L).doesNotContainKey("peakOverBudget");
    }

    @Test
    void anEmptyGridHasNotSurvived() {
        assertThat(ScaleSummary.of(List.of(), List.of()).allCellsSurvived()).isFalse();
    }
}
