package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-second lag timeline against a series whose means are worked out by hand. */
class LagReportTest {

    @Test
    void perSecondIsTheTimeWeightedMeanOfEachWholeSecond() {
        // The lag rises from 1,000 ms to 1,500 ms over the first 500 ms (as time passes), holds at
        // 1,500 ms until 1,500 ms (the next probe shows a drop), then 500 ms.
        LagSeries series = new LagSeries.Builder().add(0, 1_000, 0).add(500, 1_500, 0).add(1_500, 500, 0).build();
        // Second 0: half on the line (mean 1,250), half at 1,500. Second 1: half at 1,500, half at 500. Second 2: 500.
        // The last 400 ms of a 3,400 ms run are not a whole second and are left out.
        assertThat(LagReport.perSecond(series, 3_400)).containsExactly(1_375L, 1_000L, 500L);
    }

    @Test
    void theLongestGapIsBetweenTheTwoSamplesFarthestApart() {
        LagSeries late = new LagSeries.Builder().add(0, 1_000, 0).add(250, 1_250, 0).add(10_250, 14_750, 0).add(10_500, 900, 0).build();
        assertThat(late.longestGapMillis()).isEqualTo(10_000);
        assertThat(new LagSeries.Builder().add(40, 1, 0).build().longestGapMillis()).isZero();
    }

    @Test
    void aSecondBeforeTheFirstSampleIsMinusOne() {
        LagSeries series = new LagSeries.Builder().add(1_200, 800, 0).build();
        assertThat(LagReport.perSecond(series, 3_000)).isEqualTo(List.of(-1L, 800L, 800L));
    }
}
