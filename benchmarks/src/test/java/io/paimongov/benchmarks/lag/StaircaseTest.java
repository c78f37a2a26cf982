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
        for (double anchor : new double[] {300, 9_999, 16_667, 31_273, 40_690, 250_000}) {
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
        // An anchor of a few rows per second starts at the lowest first stair, 115 rows/s, not at 0.
        assertThat(Staircase.from(1, 0, 2_000, 3).rates()).containsExactly(115.0, 144.0, 180.0);
    }

    @Test
    void theFirstStairIsJudgedFromTheWarmUpPlusAStairToTheWarmUpPlusThree() {
        Staircase s = new Staircase(15_000, 20_000, List.of(1_000.0, 2_000.0, 4_000.0));
        assertThat(s.halfMillis()).isEqualTo(10_000);
        assertThat(s.firstJudgedAtMillis()).isEqualTo(35_000);
        assertThat(s.firstStairMaxMillis()).isEqualTo(75_000);
        // The longest first stair and two stairs of 20 s.
        assertThat(s.maxDurationMillis()).isEqualTo(115_000);
        assertThatThrownBy(() -> new Staircase(0, 1, List.of(1.0))).hasMessageContaining("at least 2 ms");
        assertThatThrownBy(() -> new Staircase(0, 1_000, List.of())).hasMessageContaining("0 stairs");
    }
}
