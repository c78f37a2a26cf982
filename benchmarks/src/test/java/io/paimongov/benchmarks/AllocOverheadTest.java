package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * P7 on tiny counts: every provider is measured against its own engine and gives a ratio, and the
 * two sides of each pair give back every page they take, so the ratio compares like with like.
 * No timing is asserted: the numbers depend on the machine.
 */
class AllocOverheadTest {

    @Test
    void everyProviderGetsAPositiveRatioAgainstItsEngine() {
        AllocOverhead.Result r = AllocOverhead.measure(AllocOverhead.Size.TINY);

        assertThat(r.ratios().keySet()).containsExactly("heap", "offheap", "flink", "spark");
        for (Map<String, Double> values : List.of(r.ratios(), r.providerNanos(), r.engineNanos())) {
            assertThat(values.keySet()).containsExactlyElementsOf(PagePair.PROVIDERS);
            assertThat(values.values()).allSatisfy(v -> assertThat(v).isPositive().isFinite());
        }
        assertThat(r.rounds()).isEqualTo(3);
    }

    @Test
    void bothSidesOfEveryPairGiveBackWhatTheyTake() {
        for (String provider : PagePair.PROVIDERS) {
            try (PagePair pair = PagePair.open(provider)) {
                for (int i = 0; i < 100; i++) {
                    assertThat(pair.providerPage()).isNotNull();
                    assertThat(pair.enginePage()).isNotNull();
                }
                assertThat(pair.engineUsedBytes()).as(provider).isZero();
            }
        }
    }

    @Test
    void anUnknownProviderNamesTheProvidersFound() {
        assertThatThrownBy(() -> PagePair.open("nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nope")
                .hasMessageContaining("heap");
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(AllocOverhead.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
        assertThat(AllocOverhead.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    }
}
