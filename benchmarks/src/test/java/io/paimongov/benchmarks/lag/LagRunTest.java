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
    void theCheckScalesTheEstimateByTheThreadsBusyShare() {
        // Busy half the time at 10,000 rows/s: it could drain 20,000.
        ReadLag.Check half = new ReadLag.Check(10_000, 0.5, 1.0, 1);
        assertThat(half.drainRowsPerSec()).isCloseTo(20_000.0, within(1e-6));
        assertThat(half.saturated()).as("half busy: another step").isFalse();
        // Busy 5%: the extrapolation stops at 1 / 0.2.
        assertThat(new ReadLag.Check(10_000, 0.05, 1.0, 1).drainRowsPerSec()).isCloseTo(50_000.0, within(1e-6));
        // Held back to 80% of the offered rate: the estimate was above what it drains; that rate is it.
        ReadLag.Check heldBack = new ReadLag.Check(10_000, 0.7, 0.8, 2);
        assertThat(heldBack.drainRowsPerSec()).isCloseTo(8_000.0, within(1e-6));
        assertThat(heldBack.saturated()).isTrue();
        // Busy 92% and keeping up: about saturated, no further step.
        assertThat(new ReadLag.Check(10_000, 0.92, 1.0, 1).saturated()).isTrue();
    }
}
