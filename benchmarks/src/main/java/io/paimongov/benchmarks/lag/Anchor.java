package io.paimongov.benchmarks.lag;

/**
 * Where the rate search starts: a first estimate of what one governed compaction thread drains, from
 * a run with one thread and no rate limit (the writer as fast as it goes), measured over a span from its first committed compaction on (before it, a fresh child builds its
 * lookup files and compiles its code, which took 15 to 35 s) that lasts a fixed time and, past it,
 * until another compaction committed (LagRun's anchor run): the rows its compactions moved out of level 0 per
 * second over the span ({@link LagRun.Result#drainedRowsPerSec}); when none committed (a machine too
 * loaded to compact again before the child's time ran out), the rows made visible per second over the span, from the first visible
 * row if later, when that is at least a quarter of the span; else the rate the writer wrote. The
 * anchor decides only which grid rate the {@link Staircase} starts at, never a rate compared.
 *
 * <p>Immutable.
 *
 * @param drainedRowsPerSec rows moved out of level 0 per second over the span
 * @param visibleRowsPerSec rows made visible per second over the visible part of the span
 * @param visibleSeconds that part's length; 0 when nothing became visible
 * @param writtenRowsPerSec rows written per second over the span
 * @param seconds the span's length
 */
public record Anchor(double drainedRowsPerSec, double visibleRowsPerSec, double visibleSeconds, double writtenRowsPerSec,
        double seconds) {

    /** The anchor of run {@code r} over {@code [fromMillis, toMillis]}. */
    static Anchor of(LagRun.Result r, long fromMillis, long toMillis) {
        long first = r.firstVisibleMillis();
        long from = Math.max(fromMillis, first);
        double span = first < 0 ? 0 : Math.max(0, toMillis - from) / 1e3;
        return new Anchor(r.drainedRowsPerSec(fromMillis, toMillis), span > 0 ? r.visibleRowsPerSec(from, toMillis) : 0, span,
                r.writtenRowsPerSec(fromMillis, toMillis), (toMillis - fromMillis) / 1e3);
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
