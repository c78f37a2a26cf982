package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The rate search's grid and timings, against values worked out from the rule as docs/performance.md states it. */
class StaircaseTest {

    @Test
    void theGridIsTenThousandRowsPerSecondTimesPowersOfOneAndAQuarter() {
        assertThat(Staircase.gridRate(0)).isEqualTo(10_000.0);
        assertThat(Staircase.gridRate(1)).isEqualTo(12_500.0);
        assertThat(Staircase.gridRate(4)).isEqualTo(24_414.0);
        assertThat(Staircase.gridRate(-1)).isEqualTo(8_000.0);
    }

    @Test
    void theFirstStairIsTheLargestGridRateAtMostSixTenthsOfTheAnchor() {
        // A model that scans the grid by hand.
        for (double anchor : new double[] {150, 9_999, 16_667, 31_273, 40_690, 250_000}) {
            int best = Integer.MIN_VALUE;
            for (int k = -40; k <= 40; k++) {
                if (10_000 * Math.pow(1.25, k) <= 0.6 * anchor + 0.5) {
                    best = k;
                }
            }
            assertThat(Staircase.startIndex(anchor)).as("anchor %s", anchor).isEqualTo(best);
        }
        // 0.6 x 31,273 = 18,764: 15,625 is the largest grid rate below it, the next is 19,531.
        assertThat(Staircase.from(31_273, 15_000, 15_000, 3).rates()).containsExactly(15_625.0, 19_531.0, 24_414.0);
        assertThatThrownBy(() -> Staircase.startIndex(0)).hasMessageContaining("anchor");
    }

    @Test
    void stairsFollowTheWarmUpAndAreJudgedOverTheirSecondHalf() {
        Staircase s = new Staircase(15_000, 20_000, List.of(1_000.0, 2_000.0, 4_000.0));
        assertThat(s.startMillis(0)).isEqualTo(15_000);
        assertThat(s.endMillis(0)).isEqualTo(35_000);
        assertThat(s.judgedFromMillis(0)).isEqualTo(25_000);
        assertThat(s.judgedFromMillis(2)).isEqualTo(65_000);
        assertThat(s.durationMillis()).isEqualTo(75_000);
        Arrivals a = s.arrivals(0);
        // The warm-up runs at the first stair's rate.
        assertThat(a.rowsPerSecAt(0)).isEqualTo(1_000.0);
        assertThat(a.rowsPerSecAt(34_999)).isEqualTo(1_000.0);
        assertThat(a.rowsPerSecAt(35_000)).isEqualTo(2_000.0);
        assertThat(a.rowsPerSecAt(55_000)).isEqualTo(4_000.0);
        // By the end: 35 s at 1,000, 20 s at 2,000, 20 s at 4,000 rows/s, and row 0 at the start.
        assertThat(a.arrivedBy(75_000)).isEqualTo(35_000 + 40_000 + 80_000 + 1);
    }
}
