package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The steadiness criterion against synthetic lag series whose trend is known: the sawtooth of a
 * commit every second (the lag rises one ms per ms between commits and drops at each) on top of a
 * line of a given slope, probed every 250 ms as a run probes.
 */
class SteadinessTest {

    /** A sawtooth from 1 s to 2 s with period 1 s, plus {@code slope} ms of lag per ms, probed every 250 ms over [0, 20 s). */
    private static LagSeries sawtooth(double slope) {
        LagSeries.Builder b = new LagSeries.Builder();
        for (long t = 0; t < 20_000; t += 250) {
            b.add(t, 1_000 + t % 1_000 + Math.round(slope * t), 4);
        }
        return b.build();
    }

    @Test
    void aSawtoothThatHoldsIsSteady() {
        Steadiness.Verdict v = Steadiness.judge(sawtooth(0), 10_000, 20_000, 1_000);
        assertThat(v.steady()).isTrue();
        assertThat(v.slope()).isCloseTo(0, within(1e-9));
        assertThat(v.level0Mean()).isEqualTo(4.0);
    }

    @Test
    void theSlopeIsTheTrendUnderTheSawtooth() {
        for (double slope : new double[] {0.02, 0.05, 0.09, 0.11, 0.2, 0.5}) {
            Steadiness.Verdict v = Steadiness.judge(sawtooth(slope), 10_000, 20_000, 1_000);
            // Each whole-period bin averages the sawtooth out; the rounding of a sample moves little.
            assertThat(v.slope()).as("slope %s", slope).isCloseTo(slope, within(0.002));
            assertThat(v.steady()).as("slope %s", slope).isEqualTo(slope <= Steadiness.SLOPE_BOUND);
        }
    }

    @Test
    void aLagThatGrowsAsTimePassesIsNotSteadyAndOneThatFallsIs() {
        // Nothing becomes visible: the lag grows one ms per ms.
        LagSeries.Builder growing = new LagSeries.Builder();
        LagSeries.Builder falling = new LagSeries.Builder();
        for (long t = 0; t < 20_000; t += 250) {
            growing.add(t, t, 0);
            falling.add(t, Math.max(1_000, 30_000 - 2 * t), 0);
        }
        Steadiness.Verdict up = Steadiness.judge(growing.build(), 10_000, 20_000, 1_000);
        assertThat(up.steady()).isFalse();
        assertThat(up.slope()).isCloseTo(1.0, within(0.01));
        assertThat(up.meanLagMillis()).isCloseTo(15_000, within(200.0));
        assertThat(Steadiness.judge(falling.build(), 10_000, 20_000, 1_000).steady()).as("a backlog being caught up").isTrue();
    }

    @Test
    void onlyALagThatNeitherRisesNorFallsIsFlat() {
        // A start-up's tail: the lag falls by 0.3 ms per ms under the sawtooth. Sustained, not flat.
        Steadiness.Verdict falling = Steadiness.judge(sawtooth(-0.3), 10_000, 20_000, 1_000);
        assertThat(falling.steady()).isTrue();
        assertThat(falling.flat()).isFalse();
        assertThat(Steadiness.judge(sawtooth(0.05), 10_000, 20_000, 1_000).flat()).isTrue();
        assertThat(Steadiness.judge(sawtooth(-0.05), 10_000, 20_000, 1_000).flat()).isTrue();
        assertThat(Steadiness.judge(sawtooth(0.2), 10_000, 20_000, 1_000).flat()).isFalse();
    }

    @Test
    void aBinNoProbeCoversIsNotSteady() {
        LagSeries late = new LagSeries.Builder().add(15_000, 1_000, 0).add(15_500, 1_200, 0).build();
        Steadiness.Verdict v = Steadiness.judge(late, 10_000, 20_000, 1_000);
        assertThat(v.slope()).isNaN();
        assertThat(v.steady()).isFalse();
    }

    @Test
    void aStretchNeedsTwoWholeBins() {
        assertThatThrownBy(() -> Steadiness.judge(sawtooth(0), 10_000, 11_999, 1_000)).hasMessageContaining("at least 2");
    }
}
