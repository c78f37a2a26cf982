package io.paimongov.benchmarks.lag;

import java.util.ArrayList;
import java.util.List;

/**
 * The search over offered rates that one run climbs: a warm-up, then stairs of equal length at rates
 * that rise by {@value #FACTOR} times from stair to stair, on one grid for every machine and run
 * ({@link #gridRate}: {@value #GRID_BASE} rows/s times a power of {@value #FACTOR}). The run stops at
 * its first stair that is not steady ({@link Steadiness}); the highest steady stair is the highest
 * rate the setting sustains, to within one step of the grid.
 *
 * <p>Every setting climbs the same stairs from the same first one, so the stairs two settings both
 * sustained were run at the same rates and times of their runs. The first stair is the largest grid
 * rate at most {@value #START_SHARE} times the anchor (a first estimate of what one compaction
 * thread drains, {@link Anchor}): the anchor was 0.6 to 1.3 times what one thread drained when
 * saturated in the runs of 2026-12-03, so the first stair is below one thread's rate, and the anchor
 * only decides where the climb starts, never the rates compared. The warm-up runs at the first
 * stair's rate and is not judged: a run's first compactions build the lookup files of every bucket's
 * upper levels, which took the first 15 to 20 s of a run.
 *
 * <p>Every constant here was fixed before the runs recorded in docs/performance.md and is not
 * changed after seeing a result. Immutable.
 *
 * @param warmUpMillis the warm-up before the first stair, at the first stair's rate
 * @param stairMillis each stair's length
 * @param rates the stairs' rates in rows per second, rising
 */
public record Staircase(long warmUpMillis, long stairMillis, List<Double> rates) {

    /** The rate every grid is built on, rows per second. */
    public static final double GRID_BASE = 10_000;
    /** Each stair's rate over the one before: the search's resolution. */
    public static final double FACTOR = 1.25;
    /** The first stair is the largest grid rate at most this share of the anchor. */
    public static final double START_SHARE = 0.6;

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

    /** The grid index of the first stair: the largest grid rate at most {@value #START_SHARE} times {@code anchorRowsPerSec}. */
    static int startIndex(double anchorRowsPerSec) {
        if (!(anchorRowsPerSec > 0) || Double.isInfinite(anchorRowsPerSec)) {
            throw new IllegalArgumentException("the anchor must be positive and finite: " + anchorRowsPerSec);
        }
        double target = START_SHARE * anchorRowsPerSec;
        int k = (int) Math.floor(Math.log(target / GRID_BASE) / Math.log(FACTOR));
        while (gridRate(k + 1) <= target) {
            k++;
        }
        while (gridRate(k) > target) {
            k--;
        }
        return k;
    }

    /** {@code stairs} stairs of {@code stairMillis} from the grid rate {@link #startIndex} of {@code anchorRowsPerSec} on. */
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

    /** Where stair {@code i} starts, in ms from the run's start (stair 0 after the warm-up). */
    public long startMillis(int i) {
        return warmUpMillis + i * stairMillis;
    }

    /** Where stair {@code i} ends. */
    public long endMillis(int i) {
        return startMillis(i + 1);
    }

    /** Where the judged part of stair {@code i} starts: its second half. */
    long judgedFromMillis(int i) {
        return endMillis(i) - stairMillis / 2;
    }

    /** The whole climb, if no stair stops it. */
    long durationMillis() {
        return endMillis(rates.size() - 1);
    }

    /** The arrival schedule of a run that starts at {@code startMillis} (epoch ms): the warm-up at stair 0's rate. */
    Arrivals arrivals(long startMillis) {
        long[] from = new long[rates.size()];
        double[] perSec = new double[rates.size()];
        for (int i = 0; i < rates.size(); i++) {
            from[i] = i == 0 ? 0 : startMillis(i);
            perSec[i] = rates.get(i);
        }
        return new Arrivals(startMillis, from, perSec);
    }
}
