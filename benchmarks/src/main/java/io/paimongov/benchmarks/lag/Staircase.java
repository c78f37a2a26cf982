package io.paimongov.benchmarks.lag;

import java.util.ArrayList;
import java.util.List;

/**
 * The search over offered rates that one run climbs: stairs at rates that rise by {@value #FACTOR}
 * times from stair to stair, on one grid for every machine and run ({@link #gridRate}: {@value
 * #GRID_BASE} rows/s times a power of {@value #FACTOR}). The run stops at its first stair that is not
 * steady ({@link Steadiness}); the highest steady stair is the highest rate the setting sustains, to
 * within one step of the grid.
 *
 * <p>The first stair is also the run's start-up: a run's first compactions build the lookup files
 * of every bucket's upper levels and a fresh JVM compiles its code, which took 15 to 35 s. So the
 * first stair lasts at least {@code warmUpMillis} plus one stair, and is judged over the last half
 * stair at every half stair from then on until its lag is flat (neither rising nor falling), at most until {@link
 * #firstStairMaxMillis}; every later stair lasts {@code stairMillis} and is judged over its second
 * half. Every setting climbs the same rates, so the stairs two settings both sustained were run at
 * the same rates; only the first stair's length may differ between them.
 *
 * <p>The first stair is the largest grid rate at most {@value #START_SHARE} times the anchor (what
 * one governed compaction thread drained, fed without a limit, {@link Anchor}; in the runs of
 * 2026-12-03 that estimate was up to 1.3 times what one thread drained at a fixed rate, so the first
 * stair is below one thread's rate). The anchor decides where the climb starts, never a rate
 * compared.
 *
 * <p>Every constant here was fixed before the runs recorded in docs/performance.md and is not
 * changed after seeing a result. Immutable.
 *
 * @param warmUpMillis the least time the first stair runs before its first judged half stair starts
 * @param stairMillis each later stair's length; the judged part is its second half
 * @param rates the stairs' rates in rows per second, rising
 */
public record Staircase(long warmUpMillis, long stairMillis, List<Double> rates) {

    /** The rate every grid is built on, rows per second. */
    public static final double GRID_BASE = 10_000;
    /** Each stair's rate over the one before: the search's resolution. */
    public static final double FACTOR = 1.25;
    /** The first stair is the largest grid rate at most this share of the anchor. */
    public static final double START_SHARE = 0.6;
    /**
     * The lowest first stair: grid rate {@value}, 115 rows/s. Only an anchor from a machine too busy
     * to compact at all (or a test's table of a few thousand keys) comes near it; rounded to whole
     * rows per second, the grid's rates below it would repeat.
     */
    static final int MIN_INDEX = -20;
    /** The first stair lasts at most the warm-up plus this many stairs. */
    public static final int FIRST_STAIR_MAX_STAIRS = 3;

    public Staircase {
        rates = List.copyOf(rates);
        if (rates.isEmpty() || warmUpMillis < 0 || stairMillis < 2) {
            throw new IllegalArgumentException("a staircase needs a stair of at least 2 ms and a warm-up of at least 0 ms: "
                    + rates.size() + " stairs of " + stairMillis + " ms after " + warmUpMillis + " ms");
        }
    }

    /** Grid rate {@code k}: {@value #GRID_BASE} times {@value #FACTOR} to the {@code k}, rounded to whole rows per second. */
    static double gridRate(int k) {
        return Math.round(GRID_BASE * Math.pow(FACTOR, k));
    }

    /**
     * The grid index of the first stair: the largest grid rate at most {@value #START_SHARE} times
     * {@code anchorRowsPerSec}, at least {@link #MIN_INDEX}.
     */
    static int startIndex(double anchorRowsPerSec) {
        if (!(anchorRowsPerSec > 0) || Double.isInfinite(anchorRowsPerSec)) {
            throw new IllegalArgumentException("the anchor must be positive and finite: " + anchorRowsPerSec);
        }
        double target = START_SHARE * anchorRowsPerSec;
        int k = Math.max(MIN_INDEX - 1, (int) Math.floor(Math.log(target / GRID_BASE) / Math.log(FACTOR)));
        while (gridRate(k + 1) <= target) {
            k++;
        }
        while (gridRate(k) > target) {
            k--;
        }
        return Math.max(MIN_INDEX, k);
    }

    /** {@code stairs} stairs from the grid rate {@link #startIndex} of {@code anchorRowsPerSec} on. */
    static Staircase from(double anchorRowsPerSec, long warmUpMillis, long stairMillis, int stairs) {
        int k = startIndex(anchorRowsPerSec);
        List<Double> rates = new ArrayList<>();
        for (int i = 0; i < stairs; i++) {
            rates.add(gridRate(k + i));
        }
        return new Staircase(warmUpMillis, stairMillis, rates);
    }

    public int stairs() {
        return rates.size();
    }

    /** Half a stair: the judged part, and the step at which the first stair is judged again. */
    long halfMillis() {
        return stairMillis / 2;
    }

    /** When the first stair is first judged (over the half stair before it), from the run's start. */
    long firstJudgedAtMillis() {
        return warmUpMillis + stairMillis;
    }

    /** The latest the first stair is judged: the warm-up plus {@value #FIRST_STAIR_MAX_STAIRS} stairs. */
    long firstStairMaxMillis() {
        return warmUpMillis + FIRST_STAIR_MAX_STAIRS * stairMillis;
    }

    /** The longest a climb can last: the longest first stair and every later stair. */
    long maxDurationMillis() {
        return firstStairMaxMillis() + (rates.size() - 1) * stairMillis;
    }
}
