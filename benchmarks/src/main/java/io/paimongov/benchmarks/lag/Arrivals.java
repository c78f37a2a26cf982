package io.paimongov.benchmarks.lag;

/**
 * The open-loop schedule of a rate-limited lag run: rows arrive at a rate that is constant within
 * each segment of the run (a {@link Staircase}'s stairs), as records arrive in a log a streaming
 * source reads, whether or not the writer keeps up. Row {@code n} (from 0) arrives at the first time
 * by which the rate's integral from the start reaches {@code n}. A row carries its arrival time as
 * {@code ts}, so a writer held back by back-pressure falls behind the schedule and the lag a reader
 * sees includes the backlog (a closed loop, stamping rows when the writer takes them, would leave the
 * backlog out: coordinated omission).
 *
 * <p>Immutable; thread-safe.
 */
final class Arrivals {

    private final long startMillis;
    /** Where each segment starts, in ms from the start; the first is 0, strictly increasing. */
    private final long[] fromMillis;
    /** Rows per ms of each segment; the last one holds for ever. */
    private final double[] perMilli;
    /** Rows arrived (the rate's integral) by the start of each segment. */
    private final double[] rowsBefore;

    /**
     * @param startMillis arrival time of row 0 (epoch ms)
     * @param rowsPerSec the arrival rate, constant for ever
     * @throws IllegalArgumentException when {@code rowsPerSec} is not positive and finite
     */
    Arrivals(long startMillis, double rowsPerSec) {
        this(startMillis, new long[] {0}, new double[] {rowsPerSec});
    }

    /**
     * @param startMillis arrival time of row 0 (epoch ms)
     * @param fromMillis where each segment starts, in ms from {@code startMillis}: 0 first, then
     *     strictly increasing
     * @param rowsPerSec each segment's rate; the last one's holds for ever
     * @throws IllegalArgumentException when a rate is not positive and finite, or the segments are
     *     not as described
     */
    Arrivals(long startMillis, long[] fromMillis, double[] rowsPerSec) {
        if (fromMillis.length == 0 || fromMillis.length != rowsPerSec.length || fromMillis[0] != 0) {
            throw new IllegalArgumentException("segments must start at 0 ms, one rate each: " + fromMillis.length + " starts, "
                    + rowsPerSec.length + " rates");
        }
        this.startMillis = startMillis;
        this.fromMillis = fromMillis.clone();
        this.perMilli = new double[rowsPerSec.length];
        this.rowsBefore = new double[rowsPerSec.length];
        for (int i = 0; i < rowsPerSec.length; i++) {
            if (!(rowsPerSec[i] > 0) || Double.isInfinite(rowsPerSec[i])) {
                throw new IllegalArgumentException("rowsPerSec must be positive and finite: " + rowsPerSec[i]);
            }
            if (i > 0 && fromMillis[i] <= fromMillis[i - 1]) {
                throw new IllegalArgumentException("segment starts must increase: " + fromMillis[i - 1] + " then " + fromMillis[i]);
            }
            perMilli[i] = rowsPerSec[i] / 1000.0;
            rowsBefore[i] = i == 0 ? 0 : rowsBefore[i - 1] + perMilli[i - 1] * (fromMillis[i] - fromMillis[i - 1]);
        }
    }

    /** Rows that have arrived by {@code nowMillis}: those with an arrival time at or before it. */
    long arrivedBy(long nowMillis) {
        if (nowMillis < startMillis) {
            return 0;
        }
        long t = nowMillis - startMillis;
        int i = segmentAt(t);
        return (long) Math.floor(rowsBefore[i] + perMilli[i] * (t - fromMillis[i])) + 1;
    }

    /** Arrival time of row {@code n}: the first whole millisecond at which it has arrived (epoch ms). */
    long arrivalMillis(long n) {
        int i = rowsBefore.length - 1;
        while (i > 0 && rowsBefore[i] > n) {
            i--;
        }
        long t = startMillis + fromMillis[i] + (long) Math.ceil((n - rowsBefore[i]) / perMilli[i]);
        // The division and arrivedBy's product round apart now and then: agree with arrivedBy.
        while (arrivedBy(t) <= n) {
            t++;
        }
        while (t > startMillis && arrivedBy(t - 1) > n) {
            t--;
        }
        return t;
    }

    /** The rate in force {@code millis} after the start, in rows per second. */
    double rowsPerSecAt(long millis) {
        return perMilli[segmentAt(Math.max(0, millis))] * 1000.0;
    }

    private int segmentAt(long t) {
        int i = fromMillis.length - 1;
        while (i > 0 && fromMillis[i] > t) {
            i--;
        }
        return i;
    }
}
