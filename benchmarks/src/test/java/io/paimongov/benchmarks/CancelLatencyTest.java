package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** P6 takes a sample in every phase; a write that never ends by itself is always cancelled mid-phase. */
class CancelLatencyTest {

    @TempDir Path dir;

    @Test
    void everyPhaseIsSampled() throws Exception {
        CancelLatency.Result r = CancelLatency.run(dir, new CancelLatency.Settings(2, 5_000, 1_000));
        assertThat(r.phases()).containsOnlyKeys(CancelLatency.Phase.values());
        r.phases().values().forEach(p -> {
            assertThat(p.micros().size() + p.missed()).isEqualTo(2);
            assertThat(p.micros()).allSatisfy(us -> assertThat(us).isNotNegative());
            assertThat(p.p99Millis()).isGreaterThanOrEqualTo(p.p50Millis());
        });
        assertThat(r.phases().get(CancelLatency.Phase.WRITING).missed()).isZero();
        assertThat(r.phases().get(CancelLatency.Phase.SPILLING).missed()).isZero();
        assertThat(r.p99Millis()).isPositive();
        assertThat(dir.toFile().list()).isEmpty();
    }
}
