package io.paimongov.benchmarks.lag;

/**
 * Whether the read lag held steady over a stretch of a run: the criterion of the rate search
 * ({@link Staircase}), fixed before any run it judged.
 *
 * <p>How: the stretch (a stair's second half) is cut into bins of one checkpoint interval and each
 * bin's time-weighted mean lag taken ({@link LagSeries#meanLag}), so the sawtooth between two commits
 * averages out within a bin; the least-squares slope of those means against the bins' middles is the
 * lag's trend, in ms of lag per ms of run. The stretch is steady when the slope is at most {@value
 * #SLOPE_BOUND}. Why that bound: a lag rising by s ms per ms means rows become visible at 1 - s times
 * the rate they arrive (the newest visible row's age grows by what is not made visible), so the bound
 * calls a setting steady while it makes visible at least 0.9 of what arrives, and a stair a grid step
 * (1.25 times) past what the setting drains rises by about 0.2. A writer held back by Paimon's
 * back-pressure shows here too: the rows it has not written are not visible, and the lag counts from
 * their arrival. A stretch with a bin no probe covers is not steady (nothing is known of it).
 *
 * <p>Stateless; the methods are pure functions of their arguments; {@link Verdict} is immutable.
 */
public final class Steadiness {

    /** The largest slope of the lag, in ms per ms, that is still steady. */
    public static final double SLOPE_BOUND = 0.1;

    /**
     * How one stretch went.
     *
     * @param steady whether the slope was at most {@value #SLOPE_BOUND}
     * @param slope the least-squares slope of the bins' mean lags, ms per ms; NaN when a bin had no
     *     probe in force
     * @param meanLagMillis the time-weighted mean lag over the whole bins of the stretch
     * @param level0Mean the time-weighted mean level-0 file count over them
     */
    public record Verdict(boolean steady, double slope, double meanLagMillis, double level0Mean) {

        /**
         * Whether the lag was flat, neither rising nor falling by more than {@value #SLOPE_BOUND}:
         * only then is its mean a steady lag. A falling lag (a start-up's tail, one commit that
         * made a backlog visible) is sustained but not yet steady.
         */
        public boolean flat() {
            return Math.abs(slope) <= SLOPE_BOUND;
        }
    }

    private Steadiness() {}

    /**
     * Judges {@code series} over {@code [fromMillis, toMillis)} in bins of {@code binMillis} (a last
     * partial bin is left out).
     *
     * @throws IllegalArgumentException when the stretch holds fewer than two whole bins
     */
    static Verdict judge(LagSeries series, long fromMillis, long toMillis, long binMillis) {
        int n = binMillis < 1 ? 0 : (int) ((toMillis - fromMillis) / binMillis);
        if (n < 2) {
            throw new IllegalArgumentException("a stretch of [" + fromMillis + ", " + toMillis + ") ms holds " + n + " whole bins of "
                    + binMillis + " ms; at least 2 are needed for a slope");
        }
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            long from = fromMillis + i * binMillis;
            x[i] = from + binMillis / 2.0;
            y[i] = series.meanLag(from, from + binMillis);
        }
        long end = fromMillis + n * binMillis;
        double slope = slope(x, y);
        return new Verdict(slope <= SLOPE_BOUND, slope, series.meanLag(fromMillis, end), series.meanLevel0(fromMillis, end));
    }

    /** The least-squares slope of {@code y} over {@code x}; NaN when a {@code y} is NaN. */
    static double slope(double[] x, double[] y) {
        double meanX = 0;
        double meanY = 0;
        for (int i = 0; i < x.length; i++) {
            meanX += x[i] / x.length;
            meanY += y[i] / y.length;
        }
        double covariance = 0;
        double variance = 0;
        for (int i = 0; i < x.length; i++) {
            covariance += (x[i] - meanX) * (y[i] - meanY);
            variance += (x[i] - meanX) * (x[i] - meanX);
        }
        return covariance / variance;
    }
}
