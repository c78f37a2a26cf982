package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The calibration's drain rate from a synthetic run whose writer and probe timelines are known. */
class LagRunTest {

    @Test
    void visibleRowsPerSecCountsRowsUpToTheNewestVisibleTs() {
        // The writer wrote one row per ms: writtenByTick[i] = 10 i.
        long[] written = new long[501];
        for (int i = 0; i < written.length; i++) {
            written[i] = 10L * i;
        }
        // At 1 s the newest visible row was written at 0.5 s (500 rows); at 3 s, the one written at 2 s (2,000 rows).
        LagSeries series = new LagSeries.Builder().add(200, 200, 0).add(1_000, 500, 3).add(2_000, 1_900, 5).add(3_000, 1_000, 2)
                .build();
        LagRun.Settings settings = new LagRun.Settings("1", 0, 5_000, 1_000, 250, 0, 1 << 20, 100, 1);
        LagRun.Result r = new LagRun.Result(settings, series, 5_000, List.of(), null, 0, 0, 0, written);
        assertThat(r.visibleRowsPerSec(1_000, 3_000)).isCloseTo(1_500 / 2.0, within(1e-9));
        // From 1.5 s the probe in force is the one of 1 s: the same count, over 2 s of probes.
        assertThat(r.visibleRowsPerSec(1_500, 3_400)).isCloseTo(1_500 / 2.0, within(1e-9));
        // Nothing visible at the first probe: 0 rows then.
        assertThat(r.visibleRowsPerSec(200, 1_000)).isCloseTo(500 / 0.8, within(1e-9));
        assertThat(r.visibleRowsPerSec(100, 3_000)).isZero();
    }

    @Test
    void calibrationUsesTheVisibleRateWhenEnoughBecameVisibleElseTheWrittenOne() {
        // 1 row per ms written over 10 s.
        long[] written = new long[1_001];
        for (int i = 0; i < written.length; i++) {
            written[i] = 10L * i;
        }
        LagRun.Settings settings = new LagRun.Settings("1", 0, 10_000, 1_000, 250, 0, 1 << 20, 100, 1);
        // Visible from 4 s; at 5 s the newest visible row was written at 3 s, at 10 s the one written at 6 s.
        LagSeries seen = new LagSeries.Builder().add(1_000, 1_000, 0).add(4_000, 2_000, 0).add(5_000, 2_000, 0).add(10_000, 4_000, 0)
                .build();
        ReadLag.Calibration visible = ReadLag.Calibration.of(new LagRun.Result(settings, seen, 10_000, List.of(), null, 0, 0, 0, written), 10_000);
        assertThat(visible.fromVisible()).isTrue();
        assertThat(visible.visibleSeconds()).isEqualTo(5.0);
        assertThat(visible.rowsPerSec()).isCloseTo(3_000 / 5.0, within(1e-9));
        assertThat(visible.writtenRowsPerSec()).isCloseTo(1_000.0, within(1e-9));
        // First visible at 9 s: one second of ten is too little; the written rate of the second half is used.
        LagSeries late = new LagSeries.Builder().add(1_000, 1_000, 0).add(9_000, 500, 0).add(10_000, 1_000, 0).build();
        ReadLag.Calibration fallback = ReadLag.Calibration.of(new LagRun.Result(settings, late, 10_000, List.of(), null, 0, 0, 0, written), 10_000);
        assertThat(fallback.fromVisible()).isFalse();
        assertThat(fallback.rowsPerSec()).isCloseTo(1_000.0, within(1e-9));
    }

    @Test
    void aCheckThatKeptUpScalesItsRateByTheThreadsBusyShare() {
        // Busy half the time at 10,000 rows/s, everything written and made visible: it could drain 20,000.
        ReadLag.Check half = new ReadLag.Check(10_000, 0.5, 1.0, 1.0, 1);
        assertThat(half.drainRowsPerSec()).isCloseTo(20_000.0, within(1e-6));
        assertThat(half.converged()).as("half busy: another step").isFalse();
        assertThat(half.nextRowsPerSec()).isCloseTo(20_000.0, within(1e-6));
        // Busy 5%: the extrapolation stops at 1 / 0.2.
        assertThat(new ReadLag.Check(10_000, 0.05, 1.0, 1.0, 1).drainRowsPerSec()).isCloseTo(50_000.0, within(1e-6));
        // Busy 92% and keeping up (a lag falling a little counts as keeping up): the extrapolation is
        // only an estimate, so another step, at 1.1 times the rate (more than 1 / 0.92).
        ReadLag.Check busy = new ReadLag.Check(10_000, 0.92, 1.0, 1.02, 1);
        assertThat(busy.converged()).isFalse();
        assertThat(busy.drainRowsPerSec()).isCloseTo(10_000 / 0.92, within(1e-6));
        assertThat(busy.nextRowsPerSec()).isCloseTo(11_000.0, within(1e-6));
    }

    @Test
    void aCheckThatFellBehindTakesWhatBecameVisibleOrWhatTheWriterWasLetWrite() {
        // Fully busy, the writer kept up, but rows became visible at 60% of the rate: it drains 6,000,
        // far below the rate: another step there.
        ReadLag.Check behind = new ReadLag.Check(10_000, 1.0, 1.0, 0.6, 1);
        assertThat(behind.drainRowsPerSec()).isCloseTo(6_000.0, within(1e-6));
        assertThat(behind.converged()).isFalse();
        assertThat(behind.nextRowsPerSec()).as("the next step at what it drained").isCloseTo(6_000.0, within(1e-6));
        // Visible at 90%: within reach of the rate, the last step.
        ReadLag.Check near = new ReadLag.Check(10_000, 1.0, 1.0, 0.9, 2);
        assertThat(near.drainRowsPerSec()).isCloseTo(9_000.0, within(1e-6));
        assertThat(near.converged()).isTrue();
        // Held back to 80% of the rate while rows became visible at 90%: the writer's 8,000 is what it was let write.
        ReadLag.Check heldBack = new ReadLag.Check(10_000, 0.7, 0.8, 0.9, 2);
        assertThat(heldBack.drainRowsPerSec()).isCloseTo(8_000.0, within(1e-6));
        assertThat(heldBack.converged()).as("8,000 is 0.8 of the rate: not yet within reach").isFalse();
        // Held back only a little (97%) while level 0 piled up and 30% became visible: 3,000 is what it drained.
        ReadLag.Check piling = new ReadLag.Check(10_000, 0.98, 0.97, 0.3, 1);
        assertThat(piling.drainRowsPerSec()).isCloseTo(3_000.0, within(1e-6));
        assertThat(piling.converged()).isFalse();
    }

    @Test
    void aCheckIsJudgedOverThePartOfTheRunAfterTheSkip() {
        // 10 rows per ms written over 10 s, offered 10,000 rows/s; the writer stalls for the last 2 s.
        long[] written = new long[1_001];
        for (int i = 0; i < written.length; i++) {
            written[i] = 100L * Math.min(i, 800);
        }
        // The lag holds at 1 s up to 4 s, then grows by 0.5 s per s (rows visible at half the rate).
        LagSeries.Builder series = new LagSeries.Builder();
        for (long t = 0; t <= 10_000; t += 250) {
            series.add(t, t <= 4_000 ? 1_000 : 1_000 + (t - 4_000) / 2, 0);
        }
        LagRun.Settings settings = new LagRun.Settings("1", 10_000, 10_000, 1_000, 250, 0, 1 << 20, 100, 1);
        LagRun.Result r = new LagRun.Result(settings, series.build(), written[1_000], List.of(), null, 0, 0, 0, written);
        ReadLag.Check fromFour = ReadLag.Check.of(r, 4_000, 0.75, 1);
        assertThat(fromFour.visibleOverOffered()).isCloseTo(0.5, within(1e-9));
        // Written over [4 s, 10 s): 4 s of 10,000 rows/s in 6 s.
        assertThat(fromFour.achievedOverOffered()).isCloseTo(4.0 / 6.0, within(1e-9));
        assertThat(fromFour.busyRatio()).isEqualTo(0.75);
        ReadLag.Check fromZero = ReadLag.Check.of(r, 0, 0.75, 1);
        assertThat(fromZero.visibleOverOffered()).as("a part that includes the flat start rises less").isGreaterThan(0.5);
    }
}
