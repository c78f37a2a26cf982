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
        // Climbs from 200 as time passes and drops to 200 every second, sampled every 50 ms. Between
        // samples the lag rises with time, as here, except over a drop, where the last value holds:
        // per period the line 200 + t over [0, 950) and 1150 over [950, 1000): 698.75.
        LagSeries s = series(60_000, 50, t -> 200 + t % 1000);
        SteadyState r = SteadyState.of(s, SKIP, WINDOW, 60_000);
        assertThat(r.steady()).isTrue();
        assertThat(r.settledAtMillis()).isEqualTo(SKIP);
        assertThat(r.meanMillis()).isCloseTo((950 * 200 + 950.0 * 950 / 2 + 1_150 * 50) / 1_000, within(1e-6));
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
        // Not steady: the mean of the last 12 windows (of 10), i.e. all from the skip: the ramp's mean over [10 s, 60 s)
        // (35,000, less 0.1 for the last 100 ms, where the last sample holds).
        assertThat(r.settledAtMillis()).isEqualTo(SKIP);
        assertThat(r.meanMillis()).isCloseTo(35_000.0 - 100.0 * 100 / 2 / 50_000, within(1e-6));
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
        // 100 ms at 1000, then 900 ms at 10 (a compaction made newer rows visible): a sample mean would say 505.
        LagSeries s = new LagSeries.Builder().add(0, 1_000, 7).add(100, 10, 1).build();
        assertThat(s.meanLag(0, 1_000)).isCloseTo((1_000 * 100 + 10 * 900) / 1_000.0, within(1e-9));
        assertThat(s.meanLag(500, 1_000)).isEqualTo(10.0);
        assertThat(s.meanLevel0(0, 1_000)).isCloseTo((7 * 100 + 900) / 1_000.0, within(1e-9));
    }

    @Test
    void aLagRisesNoFasterThanTimeBetweenSamples() {
        // Probes 250 ms apart while nothing became visible: the lag rose 250 ms, as time did, and
        // between them it rose the same way (mean 1125 over the span, not the 1000 held).
        LagSeries steady = new LagSeries.Builder().add(0, 1_000, 0).add(250, 1_250, 0).build();
        assertThat(steady.meanLag(0, 250)).isCloseTo(1_125.0, within(1e-9));
        // A probe 10 s late that finds 14.5 s: the lag must have been at least 14.5 s - (10 s - t) at
        // each t before it, more than the 1 s held; it is 4.5 s + t over the whole span.
        LagSeries late = new LagSeries.Builder().add(0, 1_000, 0).add(10_000, 14_500, 0).add(10_250, 14_750, 0).build();
        assertThat(late.meanLag(0, 10_000)).isCloseTo(4_500 + 5_000, within(1e-9));
        // Part of that span: [2 s, 4 s) lies on the line, 6.5 s to 8.5 s.
        assertThat(late.meanLag(2_000, 4_000)).isCloseTo(7_500.0, within(1e-9));
        // A rise of 1 s over a 10 s gap: flat at 1 s until 1 s before the probe, then the line up to 2 s.
        LagSeries mixed = new LagSeries.Builder().add(0, 1_000, 0).add(10_000, 2_000, 0).build();
        assertThat(mixed.meanLag(0, 10_000)).isCloseTo((1_000 * 9_000 + 1_500 * 1_000) / 10_000.0, within(1e-9));
    }

    @Test
    void aRangeWithoutAWholeWindowIsRefused() {
        LagSeries s = series(12_000, 100, t -> 5);
        assertThatThrownBy(() -> SteadyState.of(s, SKIP, WINDOW, 12_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no whole window");
    }
}
