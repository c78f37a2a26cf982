package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The report's figures against runs whose stairs are written out by hand: the highest steady rate
 * is the last stair before the first that was not steady, the common stair the highest every run
 * sustained, ratios paired within a repetition, a failed run's figures null, and the peak over the
 * budget the live heap's, not the accounting's.
 */
class LagReportTest {

    private static final List<Double> RATES = List.of(10_000.0, 12_500.0, 15_625.0, 19_531.0);
    private static final long BUDGET = 64L << 20;

    /** A run whose stairs went as {@code steady} says ('s' steady, 'u' not), each stair's mean lag {@code lag0 + 100 i}. */
    private static Run run(String line, int rep, String steady, long lag0, long livePeak, Long accounted) {
        List<Steadiness.Verdict> verdicts = new ArrayList<>();
        for (int i = 0; i < steady.length(); i++) {
            verdicts.add(new Steadiness.Verdict(steady.charAt(i) == 's', steady.charAt(i) == 's' ? 0.01 : 0.3, lag0 + 100 * i, 4));
        }
        return new Run(line, rep, null, new LagSeries.Builder().add(0, 0, 0).build(), verdicts, RATES, List.of(0L), 50L << 20, livePeak, 40,
                0.05,
                accounted, accounted == null ? null : 10L, accounted == null ? null : 0.9, accounted == null ? null : 0L, 300L, 0, 4);
    }

    private static Run failed(String line, int rep) {
        return new Run(line, rep, "OutOfMemoryError: Java heap space", new LagSeries.Builder().add(0, 0, 0).build(), List.of(), RATES,
                List.of(0L), null, null, null, null, null, null, null, null, null, 0, 0);
    }

    private static LagReport report(List<Run> runs, int repetitions) {
        ReadLag.Sizes sizes = ReadLag.Sizes.quick().withRepetitions(repetitions).withBudgetBytes(BUDGET);
        return new LagReport(sizes, 1.0, 1.5, new Anchor(30_000, 0, 0, 40_000, 10), new Staircase(15_000, 15_000, RATES),
                List.of(List.of("1", "2", "-1", "plain"), List.of("2", "-1", "plain", "1")), runs);
    }

    @Test
    void theHighestSteadyRateIsTheLastStairBeforeTheFirstUnsteadyOne() {
        LagReport r = report(List.of(
                run("1", 0, "ssu", 3_000, 40L << 20, 60L << 20), run("2", 0, "ssss", 1_800, 80L << 20, 62L << 20),
                run("-1", 0, "ssu", 1_900, 30L << 20, 64L << 20), run("plain", 0, "su", 2_500, 200L << 20, null),
                run("1", 1, "su", 3_200, 40L << 20, 60L << 20), run("2", 1, "sssu", 1_700, 50L << 20, 60L << 20),
                run("-1", 1, "sssu", 2_000, 30L << 20, 60L << 20), run("plain", 1, "ssu", 2_400, 100L << 20, null)), 2);
        assertThat(r.run("1", 0).maxSteadyRowsPerSec()).isEqualTo(12_500.0);
        assertThat(r.run("2", 0).ceilingReached()).isTrue();
        assertThat(r.run("2", 0).maxSteadyRowsPerSec()).isEqualTo(19_531.0);
        // Every run sustained the first stair; "1" in repetition 1 and "plain" in 0 no more.
        assertThat(r.commonStair()).isZero();
        assertThat(r.commonRowsPerSec()).isEqualTo(10_000.0);
        Map<String, Object> m = r.toMap();
        assertThat(m.get("maxSteadyRowsPerSec")).isEqualTo(Map.of("1", 11_250L, "2", 17_578L, "-1", 14_063L, "plain", 11_250L));
        // 2 / 1: 19,531 / 12,500 is no ratio ("2" sustained every stair: a lower bound), 15,625 /
        // 10,000 = 1.5625; -1 / 1: 1.0 and 1.5625.
        assertThat(r.ratios("2", "1", LagReport::maxSteady)).isEqualTo(java.util.Arrays.asList(null, 1.5625));
        assertThat((Double) m.get("maxSteadyRatio2")).isCloseTo(1.56, within(1e-9));
        assertThat((Double) m.get("maxSteadyRatioAll")).isCloseTo(1.28, within(1e-9));
        // Over plain: "1" 12,500 / 10,000 and 10,000 / 12,500: median 1.025.
        assertThat(LagReport.median(r.ratios("1", "plain", LagReport::maxSteady))).isCloseTo(1.025, within(1e-9));
        assertThat(List.copyOf(((Map<?, ?>) m.get("maxSteadyOverPlain")).keySet())).isEqualTo(List.of("1", "2", "-1"));
        // Lags at stair 0: "1" 3,000 and 3,200; "2" 1,800 and 1,700: ratios 0.6 and 0.53125.
        assertThat(((Map<?, ?>) m.get("commonLagMillis")).get("1")).isEqualTo(3_100L);
        assertThat(m.get("commonLagRatio2Runs")).isEqualTo(List.of(0.6, 0.53));
        assertThat((Double) m.get("commonLagRatio2")).isCloseTo(0.57, within(1e-9));
        // The bound from outside: the largest governed live heap peak (80 MiB), not plain's 200 MiB
        // and not the accounted 64 MiB.
        assertThat(r.peakOverBudget()).isCloseTo(1.25, within(1e-9));
        assertThat(r.accountedPeakOverBudget()).isCloseTo(1.0, within(1e-9));
        assertThat(((Map<?, ?>) ((Map<?, ?>) m.get("liveHeap")).get("plain")).get("peakBytes")).isEqualTo(200L << 20);
        assertThat(m.get("failures")).isEqualTo(List.of());
    }

    @Test
    void aRunThatSustainedEveryStairGivesNoRatio() {
        // Every setting sustained all four stairs: each rate is only a lower bound of what the
        // setting sustains, so no ratio can be read from them, while the rates stay reported.
        LagReport r = report(List.of(
                run("1", 0, "ssss", 3_000, 1L, 1L), run("2", 0, "ssss", 1_800, 1L, 1L), run("-1", 0, "ssss", 1_900, 1L, 1L),
                run("plain", 0, "ssss", 2_500, 1L, null)), 1);
        Map<String, Object> m = r.toMap();
        assertThat(m.get("maxSteadyRatio2")).isNull();
        assertThat(m.get("maxSteadyRatioAll")).isNull();
        assertThat(((Map<?, ?>) m.get("maxSteadyOverPlain")).get("2")).isNull();
        assertThat(m.get("ceilingReached")).isEqualTo(Map.of("1", true, "2", true, "-1", true, "plain", true));
        assertThat(((Map<?, ?>) m.get("maxSteadyRowsPerSec")).get("1")).isEqualTo(19_531L);
        // The lags at the common stair (the top one, the fourth) are still steady lags, and
        // compared: "2" 1,800 + 300 over "1" 3,000 + 300.
        assertThat((Double) m.get("commonLagRatio2")).isCloseTo(0.64, within(1e-9));
    }

    @Test
    void aFailedRunStaysInTheReportAndItsRatiosAreNull() {
        LagReport r = report(List.of(
                run("1", 0, "sssu", 3_000, 1L, 1L), run("2", 0, "ssss", 1_800, 1L, 1L), run("-1", 0, "ssu", 1_900, 1L, 1L),
                failed("plain", 0)), 1);
        Map<String, Object> m = r.toMap();
        assertThat(((Map<?, ?>) m.get("maxSteadyRowsPerSec")).get("plain")).isNull();
        assertThat(((Map<?, ?>) m.get("maxSteadyOverPlain")).get("2")).isNull();
        assertThat(m.get("maxSteadyRuns")).isEqualTo(Map.of("1", List.of(15_625L), "2", List.of(19_531L), "-1", List.of(12_500L),
                "plain", java.util.Collections.singletonList(null)));
        // The common stair is over the runs that ran: "-1" sustained two.
        assertThat(r.commonStair()).isEqualTo(1);
        assertThat(m.get("failures")).isEqualTo(List.of(Map.of("setting", "plain", "repetition", 0, "reason",
                "OutOfMemoryError: Java heap space")));
    }

    @Test
    void aLagStillFallingAtTheCommonStairIsNoSteadyLag() {
        // "1" sustained the first stair, its lag still falling (slope -0.4): a rate it sustains,
        // but no steady lag to compare; "2" and "-1" were flat there.
        Run falling = run("1", 0, "ssu", 3_000, 1L, 1L);
        List<Steadiness.Verdict> verdicts = new ArrayList<>(falling.verdicts());
        verdicts.set(0, new Steadiness.Verdict(true, -0.4, 3_000, 4));
        falling = new Run("1", 0, null, falling.series(), verdicts, RATES, List.of(0L), 50L << 20, 1L, 40, 0.05, 1L, 10L, 0.9, 0L, 300L, 0, 4);
        LagReport r = report(List.of(falling, run("2", 0, "ssu", 1_800, 1L, 1L), run("-1", 0, "su", 1_900, 1L, 1L),
                run("plain", 0, "ssu", 2_500, 1L, null)), 1);
        assertThat(r.commonStair()).isZero();
        assertThat(falling.maxSteadyRowsPerSec()).isEqualTo(12_500.0);
        assertThat(falling.lagAtStair(0)).isNull();
        assertThat(falling.lagAtStair(1)).isEqualTo(3_100.0);
        Map<String, Object> m = r.toMap();
        assertThat(((Map<?, ?>) m.get("commonLagMillis")).get("1")).isNull();
        assertThat(((Map<?, ?>) m.get("commonLagMillis")).get("2")).isEqualTo(1_800L);
        assertThat(m.get("commonLagRatio2")).isNull();
        assertThat(m.get("commonLagRatioAll")).isNull();
    }

    @Test
    void noCommonStairWhenARunSustainedNone() {
        LagReport r = report(List.of(run("1", 0, "u", 9_000, 1L, 1L), run("2", 0, "ssu", 1_800, 1L, 1L), run("-1", 0, "su", 1_900, 1L, 1L),
                run("plain", 0, "u", 9_500, 1L, null)), 1);
        Map<String, Object> m = r.toMap();
        assertThat(r.commonStair()).isEqualTo(-1);
        assertThat(m.get("commonRowsPerSec")).isNull();
        assertThat(m.get("commonLagRatio2")).isNull();
        assertThat(((Map<?, ?>) m.get("maxSteadyRowsPerSec")).get("1")).isEqualTo(0L);
        assertThat(m.get("maxSteadyRatio2")).as("nothing sustained by one thread: no ratio").isNull();
    }

    @Test
    void perSecondIsTheTimeWeightedMeanOfEachWholeSecond() {
        // The lag rises from 1,000 ms to 1,500 ms over the first 500 ms (as time passes), holds at
        // 1,500 ms until 1,500 ms (the next probe shows a drop), then 500 ms until the last probe.
        LagSeries series = new LagSeries.Builder().add(0, 1_000, 0).add(500, 1_500, 0).add(1_500, 500, 0).add(3_000, 500, 0).build();
        // Second 0: half on the line (mean 1,250), half at 1,500. Second 1: half at 1,500, half at 500. Second 2: 500.
        // The last 400 ms of a 3,400 ms run are not a whole second and are left out.
        assertThat(LagReportMap.perSecond(series, 3_400)).containsExactly(1_375L, 1_000L, 500L);
        // A run that stopped early: no seconds after its last probe.
        assertThat(LagReportMap.perSecond(series, 60_000)).containsExactly(1_375L, 1_000L, 500L);
    }

    @Test
    void theLongestGapIsBetweenTheTwoSamplesFarthestApart() {
        LagSeries late = new LagSeries.Builder().add(0, 1_000, 0).add(250, 1_250, 0).add(10_250, 14_750, 0).add(10_500, 900, 0).build();
        assertThat(late.longestGapMillis()).isEqualTo(10_000);
        assertThat(late.until(10_249).longestGapMillis()).as("the late probe left out").isEqualTo(250);
        assertThat(late.until(10_250).samples()).hasSize(3);
        assertThat(new LagSeries.Builder().add(40, 1, 0).build().longestGapMillis()).isZero();
    }

    @Test
    void aSecondBeforeTheFirstSampleIsMinusOne() {
        LagSeries series = new LagSeries.Builder().add(1_200, 800, 0).add(3_000, 800, 0).build();
        assertThat(LagReportMap.perSecond(series, 3_000)).isEqualTo(List.of(-1L, 800L, 800L));
    }
}
