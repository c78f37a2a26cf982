package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The calibration's drain rate from a synthetic run whose writer, probe and commit timelines are known. */
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
        LagRun.Result r = new LagRun.Result(settings, series, 5_000, List.of(), null, 0, 0, 0, written, List.of());
        assertThat(r.visibleRowsPerSec(1_000, 3_000)).isCloseTo(1_500 / 2.0, within(1e-9));
        // From 1.5 s the probe in force is the one of 1 s: the same count, over 2 s of probes.
        assertThat(r.visibleRowsPerSec(1_500, 3_400)).isCloseTo(1_500 / 2.0, within(1e-9));
        // Nothing visible at the first probe: 0 rows then.
        assertThat(r.visibleRowsPerSec(200, 1_000)).isCloseTo(500 / 0.8, within(1e-9));
        assertThat(r.visibleRowsPerSec(100, 3_000)).isZero();
    }

    @Test
    void calibrationUsesTheDrainedRateElseTheVisibleOneElseTheWrittenOne() {
        // 1 row per ms written over 10 s.
        long[] written = new long[1_001];
        for (int i = 0; i < written.length; i++) {
            written[i] = 10L * i;
        }
        LagRun.Settings settings = new LagRun.Settings("1", 0, 10_000, 1_000, 250, 0, 1 << 20, 100, 1);
        // Visible from 4 s; at 5 s the newest visible row was written at 3 s, at 10 s the one written at 6 s.
        LagSeries seen = new LagSeries.Builder().add(1_000, 1_000, 0).add(4_000, 2_000, 0).add(5_000, 2_000, 0).add(10_000, 4_000, 0)
                .build();
        ReadLag.Calibration visible = ReadLag.Calibration.of(new LagRun.Result(settings, seen, 10_000, List.of(), null, 0, 0, 0, written, List.of()), 10_000);
        assertThat(visible.source()).as("no commits: nothing counted as drained").isEqualTo("visible");
        assertThat(visible.visibleSeconds()).isEqualTo(5.0);
        assertThat(visible.rowsPerSec()).isCloseTo(3_000 / 5.0, within(1e-9));
        assertThat(visible.writtenRowsPerSec()).isCloseTo(1_000.0, within(1e-9));
        // First visible at 9 s: one second of ten is too little; the written rate of the second half is used.
        LagSeries late = new LagSeries.Builder().add(1_000, 1_000, 0).add(9_000, 500, 0).add(10_000, 1_000, 0).build();
        // Compactions committed in the second half moved 4,000 level-0 rows out (rows written = rows flushed): 800 per s.
        List<LagRun.Commit> commits = List.of(new LagRun.Commit(4_000, 4_000, 4_000, 0), new LagRun.Commit(7_000, 7_000, 3_000, 2_500),
                new LagRun.Commit(10_000, 10_000, 3_000, 1_500));
        ReadLag.Calibration drained = ReadLag.Calibration.of(new LagRun.Result(settings, seen, 10_000, List.of(), null, 0, 0, 0, written,
                commits), 10_000);
        assertThat(drained.source()).isEqualTo("drained");
        assertThat(drained.rowsPerSec()).isCloseTo(4_000 / 5.0, within(1e-9));
        ReadLag.Calibration fallback = ReadLag.Calibration.of(new LagRun.Result(settings, late, 10_000, List.of(), null, 0, 0, 0, written, List.of()), 10_000);
        assertThat(fallback.source()).isEqualTo("written");
        assertThat(fallback.rowsPerSec()).isCloseTo(1_000.0, within(1e-9));
        // A writer blocked for the whole second half (Paimon's back-pressure): 4,000 rows in the
        // first 4 s, nothing after, one commit at 3 s that moved 1,500 level-0 rows out. The second
        // half counts nothing, so both rates come from the whole run: 1,500 / 10 s and 4,000 / 10 s.
        long[] blocked = new long[1_001];
        for (int i = 0; i < blocked.length; i++) {
            blocked[i] = 10L * Math.min(i, 400);
        }
        List<LagRun.Commit> early = List.of(new LagRun.Commit(3_000, 3_000, 3_000, 1_500));
        ReadLag.Calibration stalled = ReadLag.Calibration.of(new LagRun.Result(settings, late, 4_000, List.of(), null, 0, 0, 0, blocked,
                early), 10_000);
        assertThat(stalled.source()).isEqualTo("drained");
        assertThat(stalled.rowsPerSec()).isCloseTo(150.0, within(1e-9));
        assertThat(stalled.writtenRowsPerSec()).isCloseTo(400.0, within(1e-9));
    }

    @Test
    void drainedRowsPerSecCountsLevel0RowsCompactedInTheSpanInRowsWritten() {
        // Four checkpoints of 10,000 rows written; each flush merged 2,000 changes of a key into
        // others, so 8,000 level-0 rows per checkpoint: a level-0 row stands for 1.25 rows written.
        List<LagRun.Commit> commits = List.of(new LagRun.Commit(1_000, 10_000, 8_000, 0), new LagRun.Commit(2_000, 20_000, 8_000, 5_000),
                new LagRun.Commit(3_000, 30_000, 8_000, 8_000), new LagRun.Commit(4_000, 40_000, 8_000, 12_000));
        LagRun.Settings settings = new LagRun.Settings("1", 10_000, 4_000, 1_000, 250, 0, 1 << 20, 100, 1);
        LagRun.Result r = new LagRun.Result(settings, new LagSeries.Builder().build(), 40_000, List.of(), null, 0, 0, 0, new long[401],
                commits);
        // (1 s, 3 s]: the commits of 2 s and 3 s, 13,000 level-0 rows = 16,250 rows written, over 2 s.
        assertThat(r.drainedRowsPerSec(1_000, 3_000)).isCloseTo(16_250 / 2.0, within(1e-9));
        assertThat(r.drainedRowsPerSec(0, 1_000)).as("the first commit compacted nothing").isZero();
        assertThat(r.drainedRowsPerSec(3_500, 4_000)).isCloseTo(15_000 / 0.5, within(1e-9));
        LagRun.Result none = new LagRun.Result(settings, new LagSeries.Builder().build(), 0, List.of(), null, 0, 0, 0, new long[401],
                List.of());
        assertThat(none.drainedRowsPerSec(0, 4_000)).isZero();
    }

    @Test
    void aCheckThatKeptUpScalesItsRateByTheThreadsBusyShare() {
        // Busy half the time at 10,000 rows/s, everything written and made visible: it could drain
        // 20,000; the next step goes a little past that.
        ReadLag.Check half = new ReadLag.Check(10_000, 0.5, 1.0, 1.0, 1.0, 1);
        assertThat(half.behind()).isFalse();
        assertThat(half.drainRowsPerSec()).isCloseTo(20_000.0, within(1e-6));
        assertThat(half.nextRowsPerSec()).isCloseTo(1.15 * 20_000.0, within(1e-6));
        // Busy 5%: the extrapolation stops at 1 / 0.2.
        assertThat(new ReadLag.Check(10_000, 0.05, 1.0, 1.0, 1.0, 1).drainRowsPerSec()).isCloseTo(50_000.0, within(1e-6));
        // A lag falling a little counts as keeping up.
        assertThat(new ReadLag.Check(10_000, 0.99, 1.0, 1.02, 1.0, 1).behind()).isFalse();
    }

    @Test
    void aCheckThatFellBehindCountsWhatItMovedOutOfLevel0() {
        // The lag rose (60% visible by the slope) while compactions moved out 0.87 of the rate: it
        // drained 8,700; busy all the time at 1.15 times that: saturated, the last step.
        ReadLag.Check rising = new ReadLag.Check(10_000, 1.0, 1.0, 0.6, 0.87, 2);
        assertThat(rising.behind()).isTrue();
        assertThat(rising.drainRowsPerSec()).isCloseTo(8_700.0, within(1e-6));
        assertThat(rising.saturated()).isTrue();
        // Held back to 80% of the rate, the lag flat by its slope: behind all the same; it drained
        // 5,000, half the rate: the writer far busier than in the runs, so another step at 1.25 x 5,000.
        ReadLag.Check heldBack = new ReadLag.Check(10_000, 1.0, 0.8, 0.99, 0.5, 1);
        assertThat(heldBack.behind()).isTrue();
        assertThat(heldBack.drainRowsPerSec()).isCloseTo(5_000.0, within(1e-6));
        assertThat(heldBack.saturated()).isFalse();
        assertThat(heldBack.nextRowsPerSec()).isCloseTo(6_250.0, within(1e-6));
        // Only just behind (lag rising 0.06 ms per ms, 0.97 moved out): not clearly past; next at 1.25 x 9,700.
        ReadLag.Check barely = new ReadLag.Check(10_000, 0.99, 1.0, 0.94, 0.97, 1);
        assertThat(barely.behind()).isTrue();
        assertThat(barely.saturated()).isFalse();
        assertThat(barely.nextRowsPerSec()).isCloseTo(12_125.0, within(1e-6));
        // Behind at 1.18 times what it drained but idle 11% of the time: not saturated.
        assertThat(new ReadLag.Check(10_000, 0.89, 1.0, 0.9, 0.85, 1).saturated()).isFalse();
        // Fell behind but no compaction committed in the judged part: the lower of written and
        // visible is what it drained, and nothing was counted: not saturated.
        ReadLag.Check stuck = new ReadLag.Check(10_000, 1.0, 0.7, 0.3, 0.0, 1);
        assertThat(stuck.drainRowsPerSec()).isCloseTo(3_000.0, within(1e-6));
        assertThat(stuck.saturated()).isFalse();
        // Kept up, however busy: never saturated.
        assertThat(new ReadLag.Check(10_000, 1.0, 1.0, 1.0, 0.8, 1).saturated()).isFalse();
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
        LagRun.Result r = new LagRun.Result(settings, series.build(), written[1_000], List.of(), null, 0, 0, 0, written, List.of());
        ReadLag.Check fromFour = ReadLag.Check.of(r, 4_000, 0.75, 1);
        assertThat(fromFour.drainedOverOffered()).as("no commits").isZero();
        assertThat(fromFour.visibleOverOffered()).isCloseTo(0.5, within(1e-9));
        // Written over [4 s, 10 s): 4 s of 10,000 rows/s in 6 s.
        assertThat(fromFour.achievedOverOffered()).isCloseTo(4.0 / 6.0, within(1e-9));
        assertThat(fromFour.busyRatio()).isEqualTo(0.75);
        ReadLag.Check fromZero = ReadLag.Check.of(r, 0, 0.75, 1);
        assertThat(fromZero.visibleOverOffered()).as("a part that includes the flat start rises less").isGreaterThan(0.5);
    }
}
