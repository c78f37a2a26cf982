package io.paimongov.benchmarks;

import io.paimongov.benchmarks.CancelLatency.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@link CancelLatency} measured, per phase in {@link Phase} order: the latencies of the
 * samples cancelled mid-phase and the count of those that missed. Immutable.
 */
public record CancelLatencyResult(Map<Phase, CancelLatencyResult.PhaseResult> phases) {

    /**
     * The worst p99 of the goal's phases: the goal holds only when every one meets it. Null when a
     * goal phase has no sample cancelled mid-phase ({@link #missedPhases}): a phase that was not
     * measured cannot be said to meet the goal, and leaving it out would report the worst of the
     * others as if it were the worst of all.
     */
    public Double p99Millis() {
        if (!missedPhases().isEmpty()) {
            return null;
        }
        return phases.entrySet().stream()
                .filter(e -> e.getKey().goal())
                .mapToDouble(e -> e.getValue().p99Millis())
                .max()
                .orElse(0);
    }

    /** The goal's phases whose samples all missed (none was cancelled mid-phase), in {@link Phase} order. */
    public List<Phase> missedPhases() {
        return phases.entrySet().stream()
                .filter(e -> e.getKey().goal() && e.getValue().micros().isEmpty())
                .map(Map.Entry::getKey)
                .toList();
    }

    /** The p50 over all samples of all phases (the diagnostic's too); null when there is none. */
    public Double p50Millis() {
        List<Long> all = new ArrayList<>();
        phases.values().forEach(p -> all.addAll(p.micros()));
        return all.isEmpty() ? null : BenchTables.percentile(all, 50) / 1000.0;
    }

    /**
     * @param micros latencies in microseconds, one per sample that was cancelled mid-phase
     * @param missed samples whose write finished before the cancel came
     */
    public record PhaseResult(List<Long> micros, int missed) {

        /** The median latency; null when no sample was cancelled mid-phase (the phase was not measured). */
        public Double p50Millis() {
            return percentile(50);
        }

        /** The 99th percentile (nearest rank); null when no sample was cancelled mid-phase. */
        public Double p99Millis() {
            return percentile(99);
        }

        /** The largest latency; null when no sample was cancelled mid-phase. */
        public Double maxMillis() {
            return percentile(100);
        }

        private Double percentile(double p) {
            return micros.isEmpty() ? null : BenchTables.percentile(micros, p) / 1000.0;
        }
    }
}
