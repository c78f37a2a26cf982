package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The rates a run's record gives, and the anchor taken from them, from synthetic runs whose writer, probe and commit timelines are known. */
class LagRunTest {

    private static final LagRun.Settings UNLIMITED = new LagRun.Settings("1", null, 10_000, 20_000, 1_000, 250, 0, 1 << 20, 100, 1, 1_000);

    /** A result whose child wrote {@code written[i]} rows before tick i. */
    private static LagRun.Result result(LagRun.Settings s, LagSeries series, long[] written, List<LagRun.Commit> commits) {
        Map<String, String> child = new HashMap<>();
        child.put("writtenByTick", Arrays.stream(written).mapToObj(String::valueOf).collect(Collectors.joining(",")));
        child.put("rowsWritten", Long.toString(written[written.length - 1]));
        return new LagRun.Result(s, null, series, List.of(), List.of(), commits, child, 0, 0);
    }

    private static long[] linear(int ticks, long perTick, int stopAt) {
        long[] written = new long[ticks];
        for (int i = 0; i < ticks; i++) {
            written[i] = perTick * Math.min(i, stopAt);
        }
        return written;
    }

    @Test
    void visibleRowsPerSecCountsRowsUpToTheNewestVisibleTs() {
        // The writer wrote one row per ms: writtenByTick[i] = 10 i.
        long[] written = linear(501, 10, 501);
        // At 1 s the newest visible row was written at 0.5 s (500 rows); at 3 s, the one written at 2 s (2,000 rows).
        LagSeries series = new LagSeries.Builder().add(200, 200, 0).add(1_000, 500, 3).add(2_000, 1_900, 5).add(3_000, 1_000, 2)
                .build();
        LagRun.Result r = result(UNLIMITED, series, written, List.of());
        assertThat(r.visibleRowsPerSec(1_000, 3_000)).isCloseTo(1_500 / 2.0, within(1e-9));
        // From 1.5 s the probe in force is the one of 1 s: the same count, over 2 s of probes.
        assertThat(r.visibleRowsPerSec(1_500, 3_400)).isCloseTo(1_500 / 2.0, within(1e-9));
        // Nothing visible at the first probe: 0 rows then.
        assertThat(r.visibleRowsPerSec(200, 1_000)).isCloseTo(500 / 0.8, within(1e-9));
        assertThat(r.visibleRowsPerSec(100, 3_000)).isZero();
    }

    @Test
    void theAnchorUsesTheDrainedRateElseTheVisibleOneElseTheWrittenOne() {
        // 1 row per ms written over 10 s; the span measured is [5 s, 10 s].
        long[] written = linear(1_001, 10, 1_001);
        // Visible from 4 s; at 5 s the newest visible row was written at 3 s, at 10 s the one written at 6 s.
        LagSeries seen = new LagSeries.Builder().add(1_000, 1_000, 0).add(4_000, 2_000, 0).add(5_000, 2_000, 0).add(10_000, 4_000, 0)
                .build();
        Anchor visible = Anchor.of(result(UNLIMITED, seen, written, List.of()), 5_000, 10_000);
        assertThat(visible.source()).as("no commits: nothing counted as drained").isEqualTo("visible");
        assertThat(visible.visibleSeconds()).isEqualTo(5.0);
        assertThat(visible.rowsPerSec()).isCloseTo(3_000 / 5.0, within(1e-9));
        assertThat(visible.writtenRowsPerSec()).isCloseTo(1_000.0, within(1e-9));
        // First visible at 9 s: one second of five is too little; the written rate of the span is used.
        LagSeries late = new LagSeries.Builder().add(1_000, 1_000, 0).add(9_000, 500, 0).add(10_000, 1_000, 0).build();
        // Compactions committed in the span moved 4,000 level-0 rows out (rows written = rows flushed): 800 per s.
        List<LagRun.Commit> commits = List.of(new LagRun.Commit(4_000, 4_000, 4_000, 1_000), new LagRun.Commit(7_000, 7_000, 3_000, 2_500),
                new LagRun.Commit(10_000, 10_000, 3_000, 1_500));
        Anchor drained = Anchor.of(result(UNLIMITED, seen, written, commits), 5_000, 10_000);
        assertThat(drained.source()).isEqualTo("drained");
        assertThat(drained.rowsPerSec()).isCloseTo(4_000 / 5.0, within(1e-9));
        assertThat(drained.seconds()).isEqualTo(5.0);
        Anchor fallback = Anchor.of(result(UNLIMITED, late, written, List.of()), 5_000, 10_000);
        assertThat(fallback.source()).isEqualTo("written");
        assertThat(fallback.rowsPerSec()).isCloseTo(1_000.0, within(1e-9));
        // A writer blocked from 4 s on (Paimon's back-pressure): it wrote nothing in the span, and the
        // anchor is then at least 1 row per second.
        Anchor stalled = Anchor.of(result(UNLIMITED, late, linear(1_001, 10, 400), List.of()), 5_000, 10_000);
        assertThat(stalled.source()).isEqualTo("written");
        assertThat(stalled.rowsPerSec()).isEqualTo(1.0);
    }

    @Test
    void drainedRowsPerSecCountsLevel0RowsCompactedInTheSpanInRowsWritten() {
        // Four checkpoints of 10,000 rows written; each flush merged 2,000 changes of a key into
        // others, so 8,000 level-0 rows per checkpoint: a level-0 row stands for 1.25 rows written.
        List<LagRun.Commit> commits = List.of(new LagRun.Commit(1_000, 10_000, 8_000, 0), new LagRun.Commit(2_000, 20_000, 8_000, 5_000),
                new LagRun.Commit(3_000, 30_000, 8_000, 8_000), new LagRun.Commit(4_000, 40_000, 8_000, 12_000));
        LagRun.Result r = result(UNLIMITED, new LagSeries.Builder().build(), new long[401], commits);
        // (1 s, 3 s]: the commits of 2 s and 3 s, 13,000 level-0 rows = 16,250 rows written, over 2 s.
        assertThat(r.drainedRowsPerSec(1_000, 3_000)).isCloseTo(16_250 / 2.0, within(1e-9));
        assertThat(r.drainedRowsPerSec(0, 1_000)).as("the first commit compacted nothing").isZero();
        assertThat(r.drainedRowsPerSec(3_500, 4_000)).isCloseTo(15_000 / 0.5, within(1e-9));
        assertThat(result(UNLIMITED, new LagSeries.Builder().build(), new long[401], List.of()).drainedRowsPerSec(0, 4_000)).isZero();
    }

    @Test
    void settingsReachTheChildAsTheyWereGiven() {
        LagRun.Settings s = new LagRun.Settings("-1", new Staircase(15_000, 20_000, List.of(15_625.0, 19_531.0)), 10_000, 120_000, 1_000,
                250, 10, 64L << 20, 5_000_000, 42, 2_000);
        Map<String, String> args = new HashMap<>();
        for (String a : s.childArgs(java.nio.file.Path.of("/w"), java.nio.file.Path.of("/s"), java.nio.file.Path.of("/r"))) {
            String[] kv = a.split("=", 2);
            args.put(kv[0], kv[1]);
        }
        LagRun.Settings back = LagRun.Settings.fromChildArgs(args);
        // What the harness alone uses (probes, cross-checks) does not travel.
        assertThat(back).isEqualTo(new LagRun.Settings("-1", s.staircase(), 10_000, 120_000, 1_000, 0, 0, 64L << 20, 5_000_000, 42, 2_000));
        assertThat(args).containsEntry("warehouse", "/w").containsEntry("spill", "/s").containsEntry("result", "/r");
    }
}
