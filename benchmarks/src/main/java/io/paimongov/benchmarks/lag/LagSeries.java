package io.paimongov.benchmarks.lag;

import java.util.ArrayList;
import java.util.List;

/**
 * The read lag of one run over time: samples of (time since the run started, lag, level-0 files),
 * in time order. The lag is a step function: a sample's value holds until the next sample, so the
 * means here are time-weighted (a probe that came late does not weigh less).
 *
 * <p>Immutable and thread-safe once built; {@link Builder} is for one thread.
 *
 * @param samples in strictly increasing {@code millis}
 */
public record LagSeries(List<Sample> samples) {

    /**
     * One probe.
     *
     * @param millis time since the run started
     * @param lagMillis age of the newest row a batch reader sees: now minus its {@code ts} (minus the
     *     run's start while nothing is visible)
     * @param level0Files level-0 data files in the latest snapshot (what a deletion-vector read skips)
     */
    public record Sample(long millis, long lagMillis, int level0Files) {}

    public LagSeries {
        samples = List.copyOf(samples);
        for (int i = 1; i < samples.size(); i++) {
            if (samples.get(i).millis() <= samples.get(i - 1).millis()) {
                throw new IllegalArgumentException("samples must be in strictly increasing time: " + samples.get(i - 1) + " then " + samples.get(i));
            }
        }
    }

    /** The time of the last sample; 0 when empty. */
    public long endMillis() {
        return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).millis();
    }

    /**
     * The time-weighted mean lag over {@code [from, to)}: each sample holds until the next one (the
     * last until {@code to}); before the first sample in the range, the sample in force at {@code
     * from} counts. NaN when no sample is in force in the range.
     */
    public double meanLag(long from, long to) {
        return weightedMean(from, to, true);
    }

    /** The time-weighted mean level-0 file count over {@code [from, to)}, like {@link #meanLag}. */
    public double meanLevel0(long from, long to) {
        return weightedMean(from, to, false);
    }

    private double weightedMean(long from, long to, boolean lag) {
        double sum = 0;
        long weight = 0;
        for (int i = 0; i < samples.size(); i++) {
            Sample s = samples.get(i);
            long start = Math.max(from, s.millis());
            long end = Math.min(to, i + 1 < samples.size() ? samples.get(i + 1).millis() : to);
            if (end > start) {
                sum += (double) (lag ? s.lagMillis() : s.level0Files()) * (end - start);
                weight += end - start;
            }
        }
        return weight == 0 ? Double.NaN : sum / weight;
    }

    /** The samples taken in {@code [from, to)}. */
    public List<Sample> between(long from, long to) {
        return samples.stream().filter(s -> s.millis() >= from && s.millis() < to).toList();
    }

    /** Collects samples in time order. Not thread-safe. */
    public static final class Builder {
        private final List<Sample> samples = new ArrayList<>();

        /** Adds a sample; one at the same or an earlier time than the last is dropped (the clock's resolution). */
        public Builder add(long millis, long lagMillis, int level0Files) {
            if (samples.isEmpty() || millis > samples.get(samples.size() - 1).millis()) {
                samples.add(new Sample(millis, lagMillis, level0Files));
            }
            return this;
        }

        public LagSeries build() {
            return new LagSeries(samples);
        }
    }
}
