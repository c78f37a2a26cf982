package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.benchmarks.CancelLatency.Phase;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
        CancelLatencyResult r = CancelLatency.run(dir, new CancelLatency.Settings(samples, 20_000, 1_000));
        assertThat(r.phases()).containsOnlyKeys(Phase.values());
        r.phases().forEach((phase, p) -> {
            assertThat(p.micros().size() + p.missed()).as(phase.key()).isEqualTo(samples);
            assertThat(p.micros()).as(phase.key() + ": cancelled mid-phase at least once").isNotEmpty();
            assertThat(p.micros()).allSatisfy(us -> assertThat(us).isNotNegative());
            assertThat(p.p99Millis()).isGreaterThanOrEqualTo(p.p50Millis());
        });
        assertThat(r.phases().get(Phase.WRITE).missed()).isZero();
        assertThat(r.phases().get(Phase.SPILL).missed()).isZero();
        assertThat(r.missedPhases()).isEmpty();
        assertThat(r.p99Millis()).isPositive();
        assertThat(Arrays.stream(Phase.values()).filter(Phase::goal).count()).isEqualTo(6);
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theWorstPhaseIsAGoalPhaseNotTheDiagnostic() {
        // Goal phase i takes (i + 1) ms in every sample, the diagnostic the most of all.
        Map<Phase, CancelLatencyResult.PhaseResult> phases = new EnumMap<>(Phase.class);
        for (Phase p : Phase.values()) {
            long micros = p.goal() ? (p.ordinal() + 1) * 1000L : 1_000_000L;
            phases.put(p, new CancelLatencyResult.PhaseResult(List.of(micros, micros), 0));
        }
        CancelLatencyResult r = new CancelLatencyResult(phases);
        long worstGoal = Arrays.stream(Phase.values()).filter(Phase::goal).mapToLong(p -> p.ordinal() + 1).max().orElseThrow();
        assertThat(r.p99Millis()).isEqualTo(worstGoal);
        assertThat(r.missedPhases()).isEmpty();
    }

    @Test
    void aGoalPhaseWhoseSamplesAllMissedMakesTheWorstPhaseUnknown() {
        // Every phase 1 ms, except compaction: its 3 samples all missed (its compactions ended before the cancel came).
        Map<Phase, CancelLatencyResult.PhaseResult> phases = new EnumMap<>(Phase.class);
        for (Phase p : Phase.values()) {
            phases.put(p, p == Phase.COMPACTION ? new CancelLatencyResult.PhaseResult(List.of(), 3) : new CancelLatencyResult.PhaseResult(List.of(1000L), 0));
        }
        CancelLatencyResult r = new CancelLatencyResult(phases);
        assertThat(r.p99Millis()).as("not the worst of the other phases, 1 ms").isNull();
        assertThat(r.missedPhases()).containsExactly(Phase.COMPACTION);
        assertThat(r.phases().get(Phase.COMPACTION).p99Millis()).isNull();
        assertThat(r.phases().get(Phase.COMPACTION).p50Millis()).isNull();
        assertThat(r.p50Millis()).isEqualTo(1.0);

        // The diagnostic's misses do not touch the goal's key.
        phases.put(Phase.COMPACTION, new CancelLatencyResult.PhaseResult(List.of(2000L), 0));
        phases.put(Phase.COMPACTION_WAIT, new CancelLatencyResult.PhaseResult(List.of(), 3));
        CancelLatencyResult diagnosticMissed = new CancelLatencyResult(phases);
        assertThat(diagnosticMissed.p99Millis()).isEqualTo(2.0);
        assertThat(diagnosticMissed.missedPhases()).isEmpty();
    }
}
