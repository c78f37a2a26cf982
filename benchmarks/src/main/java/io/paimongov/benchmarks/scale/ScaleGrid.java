package io.paimongov.benchmarks.scale;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a scale run measures: the grid cells (governed and plain side by side) and the spill
 * series (for each format of the grid and each of {@code pk} and {@code append} in it: {@value
 * #SPILL_WRITERS} writers, the grid's rows or more ({@link #withSpillMinBudget}), governed in memory
 * vs at 5% of the input).
 *
 * @param cells the grid, in run order
 * @param spills the spill series' cells (their budget is replaced by the series' budgets)
 *
 * <p>Immutable.
 */
public record ScaleGrid(List<ScaleCell> cells, List<ScaleCell> spills) {

    /** Writers of every spill-series write: one partition of 8 buckets, or 8 append partitions. */
    public static final int SPILL_WRITERS = 8;
    /**
     * The default least spilling budget of the series ({@link #withSpillMinBudget}): its input is
     * made large enough that 5% of it is at least this much, about 2.7 times the largest table
     * minimum of 8 writers (a primary-key ORC table needs 2.2 MB at such a budget, most of it a
     * compaction task of 6 ORC readers at the measured 125 KB and a stripe each), so the series
     * measures spilling, with room for the writers' buffers, rather than a refusal at open.
     */
    public static final long SPILL_MIN_BUDGET = 6L << 20;
    public static final long DEFAULT_BUDGET = 64L << 20;
    public static final int DEFAULT_ROW_BYTES = 64;
    public static final int FULL_ROWS = 400_000;
    public static final int QUICK_ROWS = 200_000;
    public static final List<Integer> FULL_WRITERS = List.of(8, 256, 2048, 8192);
    public static final List<Integer> QUICK_WRITERS = List.of(8, 2048);
    /** Where the full grid adds {@code pk-dynamic} and {@code pk-dv}. */
    public static final int EXTRA_KINDS_WRITERS = 2048;

    public ScaleGrid {
        cells = List.copyOf(cells);
        spills = List.copyOf(spills);
    }

    /**
     * The grid: {8, 256, 2048, 8192} writers x every format x {pk, append}, plus {@code
     * pk-dynamic} and {@code pk-dv} at 2048 writers in every format.
     */
    public static ScaleGrid full(int rows, int rowBytes, long budget) {
        List<String> formats = ScaleCell.FORMATS;
        List<ScaleCell> cells = cross(FULL_WRITERS, formats, List.of(ScaleTable.PK, ScaleTable.APPEND), rows, rowBytes, budget);
        cells.addAll(cross(List.of(EXTRA_KINDS_WRITERS), formats, List.of(ScaleTable.PK_DYNAMIC, ScaleTable.PK_DV), rows, rowBytes, budget));
        return withSpills(cells);
    }

    /** For CI: {8, 2048} writers x parquet x {pk, append}, plus {@code pk-dynamic} and {@code pk-dv} at 2048. */
    public static ScaleGrid quick(int rows, int rowBytes, long budget) {
        List<ScaleCell> cells = cross(QUICK_WRITERS, List.of("parquet"), List.of(ScaleTable.PK, ScaleTable.APPEND), rows, rowBytes, budget);
        cells.addAll(cross(List.of(EXTRA_KINDS_WRITERS), List.of("parquet"), List.of(ScaleTable.PK_DYNAMIC, ScaleTable.PK_DV), rows, rowBytes,
                budget));
        return withSpills(cells);
    }

    /** Exactly {@code writers} x {@code formats} x {@code tables}, in that nesting (tables innermost). */
    public static ScaleGrid of(List<Integer> writers, List<String> formats, List<ScaleTable> tables, int rows, int rowBytes, long budget) {
        return withSpills(cross(writers, formats, tables, rows, rowBytes, budget));
    }

    /**
     * This grid with its spill series sized for a spilling budget of at least {@code bytes} (the
     * grid's own rows when they are enough); a grid without a spill series stays without.
     */
    public ScaleGrid withSpillMinBudget(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("--spill-min-budget must be positive, not " + bytes);
        }
        return spills.isEmpty() ? this : withSpills(cells, bytes);
    }

    /** This grid without its spill series. */
    public ScaleGrid withoutSpills() {
        return new ScaleGrid(cells, List.of());
    }

    private static List<ScaleCell> cross(List<Integer> writers, List<String> formats, List<ScaleTable> tables, int rows, int rowBytes,
            long budget) {
        List<ScaleCell> cells = new ArrayList<>();
        for (int w : writers) {
            for (String f : formats) {
                for (ScaleTable t : tables) {
                    cells.add(new ScaleCell(t, f, w, rows, rowBytes, budget));
                }
            }
        }
        return cells;
    }

    private static ScaleGrid withSpills(List<ScaleCell> cells) {
        return withSpills(cells, SPILL_MIN_BUDGET);
    }

    private static ScaleGrid withSpills(List<ScaleCell> cells, long spillMinBudget) {
        Set<String> formats = new LinkedHashSet<>();
        Set<ScaleTable> tables = new LinkedHashSet<>();
        cells.forEach(c -> {
            formats.add(c.format());
            tables.add(c.table());
        });
        List<ScaleCell> spills = new ArrayList<>();
        if (!cells.isEmpty()) {
            ScaleCell first = cells.get(0);
            for (String f : formats) {
                for (ScaleTable t : List.of(ScaleTable.PK, ScaleTable.APPEND)) {
                    if (tables.contains(t)) {
                        spills.add(spillCell(new ScaleCell(t, f, SPILL_WRITERS, first.rows(), first.rowBytes(), first.budgetBytes()),
                                spillMinBudget));
                    }
                }
            }
        }
        return new ScaleGrid(cells, spills);
    }

    /** {@code cell} with at least the rows whose input makes 5% of it {@code minBudget}. */
    static ScaleCell spillCell(ScaleCell cell, long minBudget) {
        long least = (long) Math.ceil(minBudget / SpillResult.SPILL_SHARE / cell.rowBinaryBytes());
        int rows = (int) Math.min(Integer.MAX_VALUE, Math.max(cell.rows(), least));
        return new ScaleCell(cell.table(), cell.format(), cell.writers(), rows, cell.rowBytes(), cell.budgetBytes());
    }
}
