package io.paimongov.benchmarks.lag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The steady-state read lag of one run, from its {@link LagSeries}.
 *
 * <p>How: the series after a warm-up skip is cut into windows of equal length and each window's
 * time-weighted mean lag taken. The run has settled at the first window from which every later
 * window agrees: at least {@value #MIN_WINDOWS} windows whose means spread (max - min) by at most
 * {@value #MAX_SPREAD} of their mean. That bounds the trend too: a lag rising by {@code d} per
 * window spreads by at least 3 d over four windows, so no trend steeper than 5% of the mean per
 * window passes (a separate slope test would never decide). The steady lag is the time-weighted
 * mean from there to the end: a sawtooth (the lag climbs between two commits and drops at each)
 * has a stable mean though not a stable maximum. A run that never settles (lag still growing) is reported with {@code steady =
 * false} and the mean of its last {@value #UNSETTLED_WINDOWS} windows.
 *
 * <p>Immutable; the factory is a pure function of its arguments.
 *
 * @param steady whether the run settled
 * @param settledAtMillis where the steady part starts (time since the run started); where the
 *     reported mean starts when not steady
 * @param meanMillis time-weighted mean lag from {@code settledAtMillis} to the end of the last window
 * @param p50Millis median of the lag samples in that part
 * @param p95Millis 95th percentile (nearest rank) of the lag samples in that part
 * @param level0Mean time-weighted mean level-0 file count in that part
 * @param level0Max the most level-0 files a sample of that part saw
 */
public record SteadyState(
        boolean steady, long settledAtMillis, double meanMillis, long p50Millis, long p95Millis, double level0Mean, int level0Max) {

    static final int MIN_WINDOWS = 4;
    static final double MAX_SPREAD = 0.15;
    static final int UNSETTLED_WINDOWS = 12;

    /**
     * Analyses {@code series} over {@code [skipMillis, endMillis)} in windows of {@code windowMillis}
     * (a last partial window is left out).
     *
     * @throws IllegalArgumentException when the range holds no whole window or no sample is in force in it
     */
    public static SteadyState of(LagSeries series, long skipMillis, long windowMillis, long endMillis) {
        if (windowMillis <= 0 || skipMillis < 0) {
            throw new IllegalArgumentException("window " + windowMillis + " ms and skip " + skipMillis + " ms: the window must be positive");
        }
        int n = (int) ((endMillis - skipMillis) / windowMillis);
        if (n < 1) {
            throw new IllegalArgumentException("no whole window of " + windowMillis + " ms in [" + skipMillis + ", " + endMillis + ") ms");
        }
        double[] means = new double[n];
        for (int i = 0; i < n; i++) {
            means[i] = series.meanLag(skipMillis + i * windowMillis, skipMillis + (i + 1) * windowMillis);
            if (Double.isNaN(means[i])) {
                throw new IllegalArgumentException("no lag sample in force in window " + i + " of " + series.samples().size() + " samples");
            }
        }
        long end = skipMillis + n * windowMillis;
        for (int i = 0; i + MIN_WINDOWS <= n; i++) {
            if (stable(means, i, n)) {
                return over(series, true, skipMillis + i * windowMillis, end);
            }
        }
        return over(series, false, skipMillis + Math.max(0, n - UNSETTLED_WINDOWS) * windowMillis, end);
    }

    /** Whether the window means {@code [from, to)} agree: their spread is small against their mean. */
    static boolean stable(double[] means, int from, int to) {
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = from; i < to; i++) {
            sum += means[i];
            min = Math.min(min, means[i]);
            max = Math.max(max, means[i]);
        }
        return max - min <= MAX_SPREAD * (sum / (to - from));
    }

    private static SteadyState over(LagSeries series, boolean steady, long from, long to) {
        List<Long> lags = new ArrayList<>();
        int level0Max = 0;
        for (LagSeries.Sample s : series.between(from, to)) {
            lags.add(s.lagMillis());
            level0Max = Math.max(level0Max, s.level0Files());
        }
        if (lags.isEmpty()) {
            // Only a sample from before the range is in force: it is the whole distribution.
            LagSeries.Sample before = series.samples().stream().filter(s -> s.millis() < from).reduce((a, b) -> b).orElseThrow();
            lags.add(before.lagMillis());
            level0Max = before.level0Files();
        }
        lags.sort(Comparator.naturalOrder());
        return new SteadyState(steady, from, series.meanLag(from, to), rank(lags, 50), rank(lags, 95), series.meanLevel0(from, to),
                level0Max);
    }

    private static long rank(List<Long> sorted, double p) {
        int r = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, r - 1)));
    }
}
