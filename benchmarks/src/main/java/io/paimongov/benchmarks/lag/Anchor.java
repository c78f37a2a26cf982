package io.paimongov.benchmarks.lag;

/**
 * Where the rate search starts: a first estimate of what one governed compaction thread drains, from
 * a short run with one thread and no rate limit (the writer as fast as it goes). Over its second
 * half, the rows its compactions moved out of level 0 per second ({@link LagRun.Result#drainedRowsPerSec});
 * when none committed then, over the whole run; when none committed at all (a loaded machine), the
 * rows made visible per second from the run's middle (or the first visible row, if later) to its end,
 * when that span is at least a quarter of the run; else the rate the writer wrote, an upper bound.
 * The anchor decides only which grid rate the {@link Staircase} starts at, never a rate compared.
 *
 * <p>Immutable.
 *
 * @param drainedRowsPerSec rows moved out of level 0 per second over the second half, or over the
 *     whole run when none were in the second half
 * @param visibleRowsPerSec rows made visible per second over the span
 * @param visibleSeconds the span's length; 0 when nothing became visible
 * @param writtenRowsPerSec rows written per second over the second half, or over the whole run when
 *     the writer wrote nothing in the second half
 * @param seconds the run's length
 */
public record Anchor(double drainedRowsPerSec, double visibleRowsPerSec, double visibleSeconds, double writtenRowsPerSec,
        double seconds) {

    static Anchor of(LagRun.Result r, long millis) {
        long first = r.firstVisibleMillis();
        long from = Math.max(millis / 2, first);
        double span = first < 0 ? 0 : Math.max(0, millis - from) / 1e3;
        double drained = r.drainedRowsPerSec(millis / 2, millis);
        double written = r.writtenRowsPerSec(millis / 2, millis);
        return new Anchor(drained > 0 ? drained : r.drainedRowsPerSec(0, millis), span > 0 ? r.visibleRowsPerSec(from, millis) : 0, span,
                written > 0 ? written : r.writtenRowsPerSec(0, millis), millis / 1e3);
    }

    /** Where {@link #rowsPerSec} comes from: "drained", "visible" or "written". */
    public String source() {
        if (drainedRowsPerSec > 0) {
            return "drained";
        }
        return visibleRowsPerSec > 0 && visibleSeconds * 4 >= seconds ? "visible" : "written";
    }

    /** The first estimate of one thread's drain rate, at least 1. */
    public double rowsPerSec() {
        return Math.max(1, switch (source()) {
            case "drained" -> drainedRowsPerSec;
            case "visible" -> visibleRowsPerSec;
            default -> writtenRowsPerSec;
        });
    }
}
