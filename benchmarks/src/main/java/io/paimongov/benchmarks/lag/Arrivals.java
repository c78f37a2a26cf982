package io.paimongov.benchmarks.lag;

/**
 * The open-loop schedule of a rate-limited lag run: row {@code n} (from 0) arrives at {@code start +
 * n / rate}, as records arrive in a log a streaming source reads, whether or not the writer keeps up.
 * A row carries its arrival time as {@code ts}, so a writer held back by back-pressure falls behind
 * the schedule and the lag a reader sees includes the backlog (a closed loop, stamping rows when the
 * writer takes them, would leave the backlog out: coordinated omission).
 *
 * <p>Immutable; thread-safe.
 */
final class Arrivals {

    private final long startMillis;
    private final double perMilli;

    /**
     * @param startMillis arrival time of row 0 (epoch ms)
     * @param rowsPerSec the arrival rate
     * @throws IllegalArgumentException when {@code rowsPerSec} is not positive and finite
     */
    Arrivals(long startMillis, double rowsPerSec) {
        if (!(rowsPerSec > 0) || Double.isInfinite(rowsPerSec)) {
            throw new IllegalArgumentException("rowsPerSec must be positive and finite: " + rowsPerSec);
        }
        this.startMillis = startMillis;
        this.perMilli = rowsPerSec / 1000.0;
    }

    /** Rows that have arrived by {@code nowMillis}: those with an arrival time at or before it. */
    long arrivedBy(long nowMillis) {
        return nowMillis < startMillis ? 0 : (long) Math.floor((nowMillis - startMillis) * perMilli) + 1;
    }

    /** Arrival time of row {@code n}: the first whole millisecond at which it has arrived (epoch ms). */
    long arrivalMillis(long n) {
        return startMillis + (long) Math.ceil(n / perMilli);
    }
}
