package io.paimongov.benchmarks.scale;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The children of one side of a comparison (a cell's governed or plain write, a spill pair's
 * in-memory or spilling write), run one or more times. A time on these machines moves by up to a
 * fifth from one child to the next, so a ratio of two single runs says little near its bound; the
 * sides of a pair run alternately and each is judged by its median run.
 *
 * <p>The series survived only when every run survived: a write that fails once in three is not a
 * write that survives. Its numbers are those of its median run (by {@code nanos}; the faster of the
 * two middle runs for an even count), or of its first failed run when one failed.
 *
 * @param runs the runs in the order they ran, at least one
 *
 * <p>Immutable.
 */
public record RunSeries(List<ChildRun> runs) {

    /** @throws IllegalArgumentException when {@code runs} is empty */
    public RunSeries {
        runs = List.copyOf(runs);
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("a run series needs at least one run");
        }
    }

    /** A series of one run. */
    public static RunSeries of(ChildRun run) {
        return new RunSeries(List.of(run));
    }

    /** This series with {@code run} after its runs. */
    RunSeries and(ChildRun run) {
        List<ChildRun> more = new ArrayList<>(runs);
        more.add(run);
        return new RunSeries(more);
    }

    /** The timed seconds of its runs added up ({@code nanos}; a failed run adds nothing). */
    double timedSeconds() {
        return runs.stream().filter(ChildRun::survived).mapToLong(r -> r.value("nanos")).sum() / 1e9;
    }

    /** Whether every run survived. */
    public boolean survived() {
        return runs.stream().allMatch(ChildRun::survived);
    }

    /**
     * The run whose numbers the series reports: its first failed run, or else its median run by
     * {@code nanos} (index (n - 1) / 2 of the runs ordered by time).
     */
    public ChildRun median() {
        for (ChildRun r : runs) {
            if (!r.survived()) {
                return r;
            }
        }
        List<ChildRun> byTime = runs.stream().sorted(Comparator.comparingLong(r -> r.value("nanos"))).toList();
        return byTime.get((byTime.size() - 1) / 2);
    }

    /** Why the series did not survive (its first failed run's reason); null when it survived. */
    public String reason() {
        return survived() ? null : median().reason();
    }

    /** A value of the median run's result line; 0 when absent. */
    public long value(String key) {
        return median().value(key);
    }

    /**
     * The value of {@code f} farthest from 0 over the runs, with its sign: the worst run, for numbers
     * judged against a bound (heap drift, peak, spill bytes). Null unless every run survived.
     */
    Double worst(ToDoubleFunction<ChildRun> f) {
        if (!survived()) {
            return null;
        }
        double worst = 0;
        for (ChildRun r : runs) {
            double v = f.applyAsDouble(r);
            if (Math.abs(v) > Math.abs(worst)) {
                worst = v;
            }
        }
        return worst;
    }

    /** Rows per second of the median run; null when the series did not survive. */
    public Long rowsPerSec() {
        return survived() ? median().rowsPerSec() : null;
    }

    /**
     * The median run's common keys ({@link ChildRun#common}), then {@code runs} (how many ran) and
     * {@code secondsRuns} (each run's timed seconds, or its wall time until it failed, in run order).
     */
    Map<String, Object> common() {
        Map<String, Object> m = median().common();
        m.put("runs", runs.size());
        m.put("secondsRuns", runs.stream().map(r -> r.common().get("seconds")).toList());
        return m;
    }

    @Override
    public String toString() {
        if (runs.size() == 1) {
            return median().toString();
        }
        return median() + " (median of " + runs.size() + (survived() ? "" : "; a run failed") + ")";
    }
}
