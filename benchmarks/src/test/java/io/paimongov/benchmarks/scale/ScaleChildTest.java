package io.paimongov.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The writing child's thrash rule and untimed spans, on numbers worked out by hand. */
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

    @Test
    void theSamplerCollectsAtEachAccountedHighAStepAboveTheLast() {
        // Accounted bytes as the sampler reads them, step 10: it collects at the first reading (5), at 15 (10 above 5),
        // not at 24 (9 above 15), at 25, not on the way down or back up to 30, at 35.
        long[] readings = {5, 12, 15, 24, 25, 3, 30, 34, 35};
        List<Long> collectedAt = new ArrayList<>();
        long high = ScaleChild.Sampler.NO_HIGH;
        for (long held : readings) {
            if (ScaleChild.Sampler.atNewHigh(held, high, 10)) {
                collectedAt.add(held);
                high = held;
            }
        }
        assertThat(collectedAt).containsExactly(5L, 15L, 25L, 35L);
    }

    @Test
    void theSamplerTakesNoAccountedHighsWithoutAccounting() {
        // Plain Paimon accounts nothing: only the periodic collections.
        assertThat(ScaleChild.Sampler.atNewHigh(ScaleChild.Sampler.NO_HIGH, ScaleChild.Sampler.NO_HIGH, 10)).isFalse();
        // A step of 0 still needs a rise of a byte, so a flat level is collected once.
        assertThat(ScaleChild.Sampler.atNewHigh(7, 7, 0)).isFalse();
        assertThat(ScaleChild.Sampler.atNewHigh(8, 7, 0)).isTrue();
    }

    @Test
    void untimedSpansCountEachInstantOnceAndOnlyInsideTheWrite() {
        // The write is [100, 1000]. Spans: [50, 150] (50 inside), [400, 500] and [450, 600] (overlap: 400..600 = 200),
        // [900, 1200] (100 inside), [1300, 1400] (outside). 50 + 200 + 100 = 350.
        List<long[]> spans = List.of(new long[] {450, 600}, new long[] {50, 150}, new long[] {400, 500}, new long[] {1300, 1400},
                new long[] {900, 1200});
        assertThat(ScaleChild.coveredNanos(spans, 100, 1000)).isEqualTo(350);
        // A span inside another counts nothing more.
        assertThat(ScaleChild.coveredNanos(List.of(new long[] {200, 800}, new long[] {300, 400}), 100, 1000)).isEqualTo(600);
        assertThat(ScaleChild.coveredNanos(List.of(), 100, 1000)).isZero();
    }
}
