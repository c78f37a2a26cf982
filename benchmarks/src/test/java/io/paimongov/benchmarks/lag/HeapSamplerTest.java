package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.benchmarks.LiveHeap;
import org.junit.jupiter.api.Test;

/** The sampler against an array of known size held while it samples: the live heap it reads holds the array. */
class HeapSamplerTest {

    @Test
    void anArrayHeldAtASampleShowsInThePeak() throws Exception {
        // A period far longer than the test: only the sample taken on purpose (and the JVM's own full collections) count.
        HeapSampler sampler = new HeapSampler(600_000);
        long baseline = LiveHeap.settled();
        sampler.start();
        byte[] held = new byte[64 << 20];
        held[held.length - 1] = 1;
        sampler.sampleNow();
        sampler.stop();
        assertThat(held[held.length - 1]).as("still reachable at the sample").isEqualTo((byte) 1);
        assertThat(sampler.samples()).isPositive();
        // Other objects of the test JVM may come and go by a few MiB; the array is 64.
        assertThat(sampler.peakBytes() - baseline).isGreaterThan(56L << 20);
    }

    @Test
    void aPeriodBelowOneMillisecondIsRefused() {
        assertThatThrownBy(() -> new HeapSampler(0)).hasMessageContaining("everyMillis");
    }
}
