package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.benchmarks.CancelLatency.Phase;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P6 takes samples in every phase, each cancelled at its real trigger (a data file created, a
 * compaction task reading, a manifest created): every phase is hit at least once, and the worst
 * phase is the largest p99 of the goal's six phases. No latency is asserted: that is the bench's.
 */
class CancelLatencyTest {

    @TempDir Path dir;

    @Test
    void everyPhaseIsHit() throws Exception {
        int samples = 3;
        CancelLatency.Result r = CancelLatency.run(dir, new CancelLatency.Settings(samples, 20_000, 1_000));
        assertThat(r.phases()).containsOnlyKeys(Phase.values());
        r.phases().forEach((phase, p) -> {
            assertThat(p.micros().size() + p.missed()).as(phase.key()).isEqualTo(samples);
            assertThat(p.micros()).as(phase.key() + ": cancelled mid-phase at least once").isNotEmpty();
            assertThat(p.micros()).allSatisfy(us -> assertThat(us).isNotNegative());
            assertThat(p.p99Millis()).isGreaterThanOrEqualTo(p.p50Millis());
        });
        assertThat(r.phases().get(Phase.WRITE).missed()).isZero();
        assertThat(r.phases().get(Phase.SPILL).missed()).isZero();
        double worst = Arrays.stream(Phase.values()).filter(Phase::goal)
                .mapToDouble(p -> r.phases().get(p).p99Millis()).max().orElseThrow();
        assertThat(r.p99Millis()).isPositive().isEqualTo(worst);
        assertThat(Arrays.stream(Phase.values()).filter(Phase::goal).count()).isEqualTo(6);
        assertThat(dir.toFile().list()).isEmpty();
    }
}
