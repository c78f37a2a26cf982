package io.paimongov.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The writing child's thrash rule, on numbers worked out by hand. */
class ScaleChildTest {

    @Test
    void aFullOldGenerationCollectedMostOfTheTimeIsThrash() {
        // 9.5 s of 10 s collecting, the old generation 95% full after it.
        assertThat(ScaleChild.thrashing(9_500, 10_000, 0.95)).isTrue();
        // Exactly at the fullness bound still counts.
        assertThat(ScaleChild.thrashing(9_500, 10_000, ScaleChild.THRASH_FULL_SHARE)).isTrue();
    }

    @Test
    void slowCollectionsOfAMostlyFreeHeapAreNotThrash() {
        // A stalled machine: 9.4 s of 10.4 s in collections that left the old generation 7% full.
        assertThat(ScaleChild.thrashing(9_380, 10_405, 0.07)).isFalse();
    }

    @Test
    void aFullHeapThatStillRunsIsNotThrash() {
        // Half the time collecting: slow, but the write still moves.
        assertThat(ScaleChild.thrashing(5_000, 10_000, 0.99)).isFalse();
        // At 90% exactly it is not more than 90%.
        assertThat(ScaleChild.thrashing(9_000, 10_000, 0.99)).isFalse();
    }
}
