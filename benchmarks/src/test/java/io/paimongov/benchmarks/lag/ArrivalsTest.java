package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The open-loop schedule against rates whose arrivals are counted by hand. */
class ArrivalsTest {

    @Test
    void fourRowsPerSecondArriveEveryQuarterSecond() {
        Arrivals a = new Arrivals(10_000, 4);
        assertThat(a.arrivedBy(9_999)).isZero();
        assertThat(a.arrivedBy(10_000)).isEqualTo(1);
        assertThat(a.arrivedBy(10_249)).isEqualTo(1);
        assertThat(a.arrivedBy(10_250)).isEqualTo(2);
        assertThat(a.arrivedBy(11_000)).isEqualTo(5);
        assertThat(a.arrivalMillis(0)).isEqualTo(10_000);
        assertThat(a.arrivalMillis(3)).isEqualTo(10_750);
        assertThat(a.arrivalMillis(4)).isEqualTo(11_000);
    }

    @Test
    void everyRowHasArrivedByItsOwnArrivalTimeAndNotBefore() {
        Arrivals a = new Arrivals(0, 2_500);
        for (long n = 0; n < 10_000; n++) {
            long t = a.arrivalMillis(n);
            assertThat(a.arrivedBy(t)).as("row %d at %d ms", n, t).isGreaterThan(n);
            assertThat(a.arrivedBy(t - 1)).as("row %d before %d ms", n, t).isLessThanOrEqualTo(n);
        }
    }

    @Test
    void stairsArriveAsTheIntegralOfTheirRates() {
        // 1,000 rows/s for 2 s, then 3,000 rows/s from 2 s, then 500 rows/s from 5 s.
        Arrivals a = new Arrivals(0, new long[] {0, 2_000, 5_000}, new double[] {1_000, 3_000, 500});
        // A model that counts by hand: the rate's integral up to t, plus row 0 at the start.
        for (long t = 0; t <= 8_000; t += 7) {
            double integral = t <= 2_000 ? t : t <= 5_000 ? 2_000 + 3.0 * (t - 2_000) : 11_000 + 0.5 * (t - 5_000);
            assertThat(a.arrivedBy(t)).as("by %d ms", t).isEqualTo((long) Math.floor(integral) + 1);
        }
        assertThat(a.rowsPerSecAt(1_999)).isEqualTo(1_000.0);
        assertThat(a.rowsPerSecAt(2_000)).isEqualTo(3_000.0);
        assertThat(a.rowsPerSecAt(60_000)).isEqualTo(500.0);
        // Row 2,000 arrives as the second segment starts; row 11,001 two ms into the third.
        assertThat(a.arrivalMillis(2_000)).isEqualTo(2_000);
        assertThat(a.arrivalMillis(11_001)).isEqualTo(5_002);
    }

    @Test
    void onStairsToo_everyRowHasArrivedByItsArrivalTimeAndNotBefore() {
        // Rates that do not divide a millisecond, as a grid's are.
        Arrivals a = new Arrivals(1_000, new long[] {0, 1_500, 2_500}, new double[] {24_414, 30_518, 38_147});
        for (long n = 0; n < 100_000; n += 3) {
            long t = a.arrivalMillis(n);
            assertThat(a.arrivedBy(t)).as("row %d at %d ms", n, t).isGreaterThan(n);
            assertThat(a.arrivedBy(t - 1)).as("row %d before %d ms", n, t).isLessThanOrEqualTo(n);
        }
    }

    @Test
    void segmentsMustStartAtZeroAndRise() {
        assertThatThrownBy(() -> new Arrivals(0, new long[] {5, 10}, new double[] {1, 1})).hasMessageContaining("start at 0");
        assertThatThrownBy(() -> new Arrivals(0, new long[] {0, 10, 10}, new double[] {1, 1, 1})).hasMessageContaining("increase");
        assertThatThrownBy(() -> new Arrivals(0, new long[] {0, 10}, new double[] {1, -1})).hasMessageContaining("rowsPerSec");
    }

    @Test
    void aRateThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new Arrivals(0, 0)).hasMessageContaining("rowsPerSec");
        assertThatThrownBy(() -> new Arrivals(0, Double.NaN)).hasMessageContaining("rowsPerSec");
    }
}
