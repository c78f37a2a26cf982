package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What {@link ReadLag} measured, and the figures derived from it, none of which depends on how long
 * a stair lasts beyond the judged half or on how fast the machine is, except through what the
 * settings themselves sustain: per setting the highest offered rate whose lag stayed steady, and the
 * steady lag at the highest stair every setting sustained (the common stair); their ratios paired
 * within a repetition (median over the repetitions); the memory peak measured from outside the
 * accounting. docs/cli.md lists the keys of {@link #toMap}.
 *
 * <p>Immutable.
 *
 * @param loadAverage the one-minute load average before the table was prepared (-1 when unknown)
 * @param loadAverageEnd the one-minute load average after the last run
 * @param anchor where the staircase started
 * @param stairs the staircase every setting climbed
 * @param orders the order the settings ran in, per repetition
 * @param runs every measured run, in the order run
 */
public record LagReport(ReadLag.Sizes sizes, double loadAverage, double loadAverageEnd, Anchor anchor, Staircase stairs,
        List<List<String>> orders, List<Run> runs) {

    public LagReport {
        orders = orders.stream().map(List::copyOf).toList();
        runs = List.copyOf(runs);
    }

    /** The run of {@code line} in {@code repetition}. */
    public Run run(String line, int repetition) {
        return runs.stream().filter(r -> r.line().equals(line) && r.repetition() == repetition).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no run of " + line + " in repetition " + repetition));
    }

    /**
     * The highest stair every run that did not fail sustained, from 0; -1 when one sustained none
     * (or none ran).
     */
    public int commonStair() {
        return runs.stream().filter(r -> r.failure() == null).mapToInt(Run::steadyStairs).min().orElse(0) - 1;
    }

    /** The common stair's rate; null when there is none. */
    public Double commonRowsPerSec() {
        int stair = commonStair();
        return stair < 0 ? null : stairs.rates().get(stair);
    }

    /** {@code figure(line)} / {@code figure(over)} per repetition; null where either side failed or the divisor is 0. */
    public List<Double> ratios(String line, String over, Function<Run, Double> figure) {
        List<Double> ratios = new ArrayList<>();
        for (int rep = 0; rep < sizes.repetitions(); rep++) {
            Run a = run(line, rep);
            Run b = run(over, rep);
            Double x = a.failure() == null ? figure.apply(a) : null;
            Double y = b.failure() == null ? figure.apply(b) : null;
            ratios.add(x == null || y == null || y <= 0 ? null : x / y);
        }
        return ratios;
    }

    /** The median of the values that are not null (mean of the middle two for an even count); null when none. */
    static Double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values.stream().filter(Objects::nonNull).toList());
        if (sorted.isEmpty()) {
            return null;
        }
        sorted.sort(Comparator.naturalOrder());
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * The highest rate a run sustained, as a figure of {@link #ratios}; null when the run sustained
     * every stair ({@link Run#ceilingReached}): its rate is then only a lower bound, and a ratio of a
     * lower bound is none.
     */
    static Double maxSteady(Run r) {
        return r.ceilingReached() ? null : r.maxSteadyRowsPerSec();
    }

    /** The lag at the common stair, as a figure of {@link #ratios}. */
    Double commonLag(Run r) {
        return r.lagAtStair(commonStair());
    }

    /**
     * The largest live heap a governed child held while it wrote, after a full collection and minus
     * its baseline, over the budget: the bound measured from outside the accounting. 0 without a
     * governed run that reported.
     */
    public double peakOverBudget() {
        return governed().map(Run::liveHeapPeakBytes).filter(Objects::nonNull).mapToLong(Long::longValue).max().orElse(0)
                / (double) sizes.budgetBytes();
    }

    /** The governed write's own accounted peak over the budget, the largest over the governed runs. */
    public double accountedPeakOverBudget() {
        return governed().map(Run::peakReservedBytes).filter(Objects::nonNull).mapToLong(Long::longValue).max().orElse(0)
                / (double) sizes.budgetBytes();
    }

    /** The repetition whose maxSteady ratio of "2" over "1" is the median one: the one the chart shows. */
    public int medianRepetition() {
        List<Double> all = ratios("2", "1", LagReport::maxSteady);
        List<Integer> reps = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            reps.add(i);
        }
        reps.sort(Comparator.comparing(i -> all.get(i) == null ? Double.NEGATIVE_INFINITY : all.get(i)));
        return reps.get((reps.size() - 1) / 2);
    }

    /** The runs of {@code line}, in repetition order. */
    List<Run> runsOf(String line) {
        return runs.stream().filter(r -> r.line().equals(line)).sorted(Comparator.comparingInt(Run::repetition)).toList();
    }

    private java.util.stream.Stream<Run> governed() {
        return runs.stream().filter(r -> LagChild.governed(r.line()));
    }

    /** The report as JSON-ready values (maps, lists, numbers, booleans, nulls); docs/cli.md lists the keys. */
    public Map<String, Object> toMap() {
        return LagReportMap.of(this);
    }

    /** A number rounded to two decimals; null stays null. */
    static Double round2(Double value) {
        return value == null ? null : BenchTables.round2(value);
    }

    /** Whole numbers of a list of doubles; nulls stay. */
    static List<Long> whole(List<Double> values) {
        return values.stream().map(v -> v == null ? null : Math.round(v)).toList();
    }

    /** Per setting, in the order of {@link ReadLag.Sizes#lines}. */
    Map<String, Object> perLine(Function<String, Object> value) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String line : sizes.lines()) {
            m.put(line, value.apply(line));
        }
        return m;
    }
}
