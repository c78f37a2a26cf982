package io.paimongov.benchmarks.lag;

import java.util.ArrayList;
import java.util.List;

/**
 * The read lag of one run over time: samples of (time since the run started, lag, level-0 files),
 * in time order. A sample's value holds until the next sample (the lag only as far as it can: see
 * {@link #meanLag}), so the means here are time-weighted (a probe that came late does not weigh less).
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

    /**
     * The longest time between two consecutive samples; 0 with fewer than two. A probe every 250 ms
     * makes it about 250 ms plus one probe's duration; much more means the probe came late, over a
     * span where {@link #meanLag} can only bound the lag.
     */
    public long longestGapMillis() {
        long longest = 0;
        for (int i = 1; i < samples.size(); i++) {
            longest = Math.max(longest, samples.get(i).millis() - samples.get(i - 1).millis());
        }
        return longest;
    }

    /** The time of the last sample; 0 when empty. */
    public long endMillis() {
        return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).millis();
    }

    /**
     * The time-weighted mean lag over {@code [from, to)}. Between two samples the lag is the earlier
     * one's, raised where needed to the later one's minus the time left to it: the newest visible
     * row never gets older, so the lag grows at most as fast as time passes, and a rise the later
     * sample shows must have begun at least that long before it. With probes every 250 ms this
     * moves little; a late probe's rise is spread over the time it was late instead of being put at
     * the probe (a probe once came 10 s late in a {@code -1} run and held 3.8 s over a span whose
     * lag reached 14.5 s). The last sample holds until {@code to}; before the first sample in the
     * range the sample in force at {@code from} counts. NaN when no sample is in force in the range.
     */
    public double meanLag(long from, long to) {
        return weightedMean(from, to, true);
    }

    /** The time-weighted mean level-0 file count over {@code [from, to)}, like {@link #meanLag}. */
    public double meanLevel0(long from, long to) {
        return weightedMean(from, to, false);
    }

    /**
     * The least-squares slope of the lag over the samples taken in {@code [from, to]}, in ms of lag
     * per ms of run: 0 for a lag that holds, 1 for one that grows as fast as time passes (nothing
     * new became visible), below 0 for one that falls. 0 with fewer than two samples.
     */
    public double lagSlope(long from, long to) {
        List<Sample> in = samples.stream().filter(s -> s.millis() >= from && s.millis() <= to).toList();
        if (in.size() < 2) {
            return 0;
        }
        double meanT = in.stream().mapToDouble(Sample::millis).average().orElseThrow();
        double meanLag = in.stream().mapToDouble(Sample::lagMillis).average().orElseThrow();
        double covariance = 0;
        double variance = 0;
        for (Sample s : in) {
            covariance += (s.millis() - meanT) * (s.lagMillis() - meanLag);
            variance += (s.millis() - meanT) * (s.millis() - meanT);
        }
        return variance == 0 ? 0 : covariance / variance;
    }

    private double weightedMean(long from, long to, boolean lag) {
        double sum = 0;
        long weight = 0;
        for (int i = 0; i < samples.size(); i++) {
            Sample s = samples.get(i);
            long start = Math.max(from, s.millis());
            long end = Math.min(to, i + 1 < samples.size() ? samples.get(i + 1).millis() : to);
            if (end > start) {
                sum += lag && i + 1 < samples.size() ? lagIntegral(s, samples.get(i + 1), start, end)
                        : (double) (lag ? s.lagMillis() : s.level0Files()) * (end - start);
                weight += end - start;
            }
        }
        return weight == 0 ? Double.NaN : sum / weight;
    }

    /**
     * The integral over {@code [a, b]} (within {@code [s.millis, next.millis]}) of {@code
     * max(s.lag, next.lag - (next.millis - t))}: flat at {@code s}'s lag up to where the line that
     * rises one ms per ms into {@code next}'s lag crosses it, on that line after.
     */
    private static double lagIntegral(Sample s, Sample next, long a, long b) {
        double cross = Math.min(b, Math.max(a, next.millis() - (double) (next.lagMillis() - s.lagMillis())));
        double offset = next.lagMillis() - (double) next.millis();
        return s.lagMillis() * (cross - a) + offset * (b - cross) + ((double) b * b - cross * cross) / 2;
    }

    /** This series up to and including {@code millis}: a run's, without the probes after its writer stopped. */
    public LagSeries until(long millis) {
        return new LagSeries(samples.stream().filter(s -> s.millis() <= millis).toList());
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
