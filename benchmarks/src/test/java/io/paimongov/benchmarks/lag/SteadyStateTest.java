package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The steady-state analysis on synthetic series whose answers are known in closed form: a sawtooth
 * (the shape of a read lag between commits), a ramp (a lag that grows without bound) and a step (a
 * lag that settles after a change).
 */
class SteadyStateTest {

    private static final long SKIP = 10_000;
    private static final long WINDOW = 5_000;

    /** Samples every {@code every} ms over {@code [0, end)}. */
    private static LagSeries series(long end, long every, LongUnaryOperator lag) {
        LagSeries.Builder b = new LagSeries.Builder();
        for (long t = 0; t < end; t += every) {
            b.add(t, lag.applyAsLong(t), (int) (t / 1000 % 2));
        }
        return b.build();
    }

    @Test
    void sawtoothIsSteadyAtItsMean() {
        // Climbs 0..950 by 50 every second and drops: the sample values of one period average 475, plus the floor 200.
        LagSeries s = series(60_000, 50, t -> 200 + t % 1000);
        SteadyState r = SteadyState.of(s, SKIP, WINDOW, 60_000);
        assertThat(r.steady()).isTrue();
        assertThat(r.settledAtMillis()).isEqualTo(SKIP);
        assertThat(r.meanMillis()).isCloseTo(675.0, within(675.0 * 0.01));
        assertThat(r.p50Millis()).isBetween(650L, 700L);
        assertThat(r.p95Millis()).isBetween(1_100L, 1_150L);
        // level-0 files alternate 0 and 1 a second, 25 s each over [10 s, 60 s): mean 0.5, max 1.
        assertThat(r.level0Mean()).isCloseTo(0.5, within(0.01));
        assertThat(r.level0Max()).isEqualTo(1);
    }

    @Test
    void rampNeverSettles() {
        LagSeries s = series(60_000, 100, t -> t);
        SteadyState r = SteadyState.of(s, SKIP, WINDOW, 60_000);
        assertThat(r.steady()).isFalse();
        // Not steady: the mean of the last 12 windows (of 10), i.e. all from the skip: the ramp's mean over [10 s, 60 s).
        assertThat(r.settledAtMillis()).isEqualTo(SKIP);
        assertThat(r.meanMillis()).isCloseTo(34_950.0, within(1.0));
    }

    @Test
    void stepSettlesAfterTheStep() {
        LagSeries s = series(60_000, 100, t -> t < 25_000 ? 5_000 : 1_000);
        SteadyState r = SteadyState.of(s, SKIP, WINDOW, 60_000);
        assertThat(r.steady()).isTrue();
        assertThat(r.settledAtMillis()).isEqualTo(25_000);
        assertThat(r.meanMillis()).isEqualTo(1_000.0);
        assertThat(r.p95Millis()).isEqualTo(1_000);
    }

    @Test
    void tooFewWindowsAfterTheStepIsNotSteady() {
        // The step leaves three windows: fewer than the four the analysis asks for.
        LagSeries s = series(60_000, 100, t -> t < 45_000 ? 5_000 : 1_000);
        assertThat(SteadyState.of(s, SKIP, WINDOW, 60_000).steady()).isFalse();
    }

    @Test
    void meansAreTimeWeighted() {
        // 100 ms at 10, then 900 ms at 1000: a sample mean would say 505.
        LagSeries s = new LagSeries.Builder().add(0, 10, 0).add(100, 1_000, 0).build();
        assertThat(s.meanLag(0, 1_000)).isCloseTo(901.0, within(1e-9));
        assertThat(s.meanLag(500, 1_000)).isEqualTo(1_000.0);
    }

    @Test
    void aRangeWithoutAWholeWindowIsRefused() {
        LagSeries s = series(12_000, 100, t -> 5);
        assertThatThrownBy(() -> SteadyState.of(s, SKIP, WINDOW, 12_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no whole window");
    }
}
