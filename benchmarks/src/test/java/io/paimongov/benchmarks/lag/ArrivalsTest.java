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
    void aRateThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new Arrivals(0, 0)).hasMessageContaining("rowsPerSec");
        assertThatThrownBy(() -> new Arrivals(0, Double.NaN)).hasMessageContaining("rowsPerSec");
    }
}
