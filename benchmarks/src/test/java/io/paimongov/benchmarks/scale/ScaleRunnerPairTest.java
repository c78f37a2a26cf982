package io.paimongov.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The order in which a cell's sides run, with stand-in children that record their turn. */
class ScaleRunnerPairTest {

    private final List<String> order = new ArrayList<>();

    private ScaleRunner.Child child(String name, boolean... survives) {
        return child(name, 1_000_000_000L, survives);
    }

    /** A child whose runs are timed at {@code nanos} each (plus their index). */
    private ScaleRunner.Child child(String name, long nanos, boolean... survives) {
        int[] calls = {0};
        return () -> {
            int i = calls[0]++;
            order.add(name);
            return i < survives.length && !survives[i]
                    ? ChildRun.failed(name + " failed", 1)
                    : ChildRun.survived(1, Map.of("rows", 1L, "nanos", nanos + i));
        };
    }

    /** Sides of 0.3 s run until both add up to 3 s: 10 rounds (the 10th reaches 3.0 s), not 5. */
    @Test
    void shortSidesRunUntilTheirTimeAddsUp() throws Exception {
        List<RunSeries> pair = ScaleRunner.rounds(List.of(child("a", 300_000_000L), child("b", 300_000_000L)), 5, ScaleRunner.MIN_SERIES_SECONDS);
        assertThat(pair.get(0).runs()).hasSize(10);
        assertThat(pair.get(1).runs()).hasSize(10);
        assertThat(pair.get(0).timedSeconds()).isGreaterThanOrEqualTo(ScaleRunner.MIN_SERIES_SECONDS);
    }

    /** A side of 0.1 s stops at the round cap; one long side does not shorten the other's rounds. */
    @Test
    void roundsStopAtTheCap() throws Exception {
        List<RunSeries> pair = ScaleRunner.rounds(List.of(child("a", 100_000_000L), child("b", 5_000_000_000L)), 5, ScaleRunner.MIN_SERIES_SECONDS);
        assertThat(pair.get(0).runs()).hasSize(ScaleRunner.MAX_ROUNDS);
        assertThat(pair.get(1).runs()).hasSize(ScaleRunner.MAX_ROUNDS);
    }

    @Test
    void sidesAlternateWhichGoesFirst() throws Exception {
        List<RunSeries> pair = ScaleRunner.rounds(List.of(child("a"), child("b")), 4, ScaleRunner.MIN_SERIES_SECONDS);
        assertThat(order).containsExactly("a", "b", "b", "a", "a", "b", "b", "a");
        assertThat(pair.get(0).runs()).hasSize(4);
        assertThat(pair.get(1).runs()).hasSize(4);
    }

    @Test
    void aPairWhoseFirstRunFailedIsNotRepeated() throws Exception {
        List<RunSeries> pair = ScaleRunner.rounds(List.of(child("a"), child("b", false)), 3, ScaleRunner.MIN_SERIES_SECONDS);
        assertThat(order).containsExactly("a", "b");
        assertThat(pair.get(1).survived()).isFalse();
        assertThat(pair.get(1).reason()).isEqualTo("b failed");
    }

    @Test
    void repeatsStopAtTheFirstFailure() throws Exception {
        List<RunSeries> pair = ScaleRunner.rounds(List.of(child("a", true, false), child("b")), 5, ScaleRunner.MIN_SERIES_SECONDS);
        // Round 1 runs b then a; a fails there, so no round 2.
        assertThat(order).containsExactly("a", "b", "b", "a");
        assertThat(pair.get(0).survived()).isFalse();
        assertThat(pair.get(1).survived()).isTrue();
    }

    @Test
    void threeSidesRotateWhichGoesFirst() throws Exception {
        ScaleRunner.rounds(List.of(child("g"), child("p"), child("d")), 3, 0);
        assertThat(order).containsExactly("g", "p", "d", "p", "d", "g", "d", "g", "p");
    }

    @Test
    void aFailedSideIsNotRunAgainAndTheOthersGoOn() throws Exception {
        List<RunSeries> sides = ScaleRunner.rounds(List.of(child("g"), child("p"), child("d", false)), 3, 0);
        assertThat(order).containsExactly("g", "p", "d", "p", "g", "g", "p");
        assertThat(sides.get(2).survived()).isFalse();
        assertThat(sides.get(2).runs()).hasSize(1);
        assertThat(sides.get(0).runs()).hasSize(3);
    }

    @Test
    void noRoundsFollowWhenTheFirstSideFailed() throws Exception {
        ScaleRunner.rounds(List.of(child("g", false), child("p"), child("d")), 3, 0);
        assertThat(order).containsExactly("g", "p", "d");
    }

    @Test
    void repeatsBelowOneAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> new ScaleRunner.Settings(10, 10, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--repeats");
    }
}
