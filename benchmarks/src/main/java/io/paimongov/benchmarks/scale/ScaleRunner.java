package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/*
 * The parent side of the scale grid. For each (table kind, format) it first measures a baseline in
 * a child of its own with a roomy heap (ScaleChild baseline: the live heap with the table and the
 * write open, no rows; the largest of plain Paimon's two writes and the governed write's). Then every
 * cell runs three writes, governed, plain Paimon with the governed write's settings and plain Paimon
 * with its defaults, each in a fresh child JVM whose heap is budget + baseline (ChildJvm; xmx), one
 * after another, never side by side (the machine is small and each child's collections would slow
 * the other). A JVM per write because what one write leaves behind (codec pools, caches, a heap
 * grown by an earlier write) must not count for the next. The spill series runs the same way, with
 * its own budgets; both of its children get the in-memory write's heap (its budget plus the
 * baseline), so that the series compares spilling with not spilling, not two heaps. When both sides
 * of a pair survive their first run, the pair runs --repeats times in all, the side that goes first
 * alternating, so that a slow minute of the machine falls on both sides alike (RunSeries).
 */

/**
 * Runs a {@link ScaleGrid} and returns its {@link ScaleReport}. Not thread-safe: one run at a time.
 * A child that fails is a result (not survived, with the reason), never an exception; a baseline
 * child that fails is an {@link IllegalStateException} with its output, since without it no heap
 * can be sized.
 */
public final class ScaleRunner {

    /** The baseline child's heap: room for an open write and nothing else to measure. */
    static final long BASELINE_HEAP = 512L << 20;
    /** Children a baseline gets before the run gives up on it. */
    static final int BASELINE_ATTEMPTS = 2;
    static final long MIB = 1L << 20;

    /**
     * @param timeoutSeconds the most one writing child may run; it is killed and reported not
     *     survived after that
     * @param sampleMillis pause between the writing children's periodic live-heap samples
     * @param repeats how many rounds the sides run while the first and another survive, at least
     * @param minSeriesSeconds the timed seconds each surviving side adds up to before its rounds
     *     stop ({@link ScaleRunner#MIN_SERIES_SECONDS} by default; 0 runs {@code repeats} rounds)
     */
    public record Settings(long timeoutSeconds, long sampleMillis, int repeats, double minSeriesSeconds) {

        /** Settings with {@link ScaleRunner#MIN_SERIES_SECONDS}. */
        public Settings(long timeoutSeconds, long sampleMillis, int repeats) {
            this(timeoutSeconds, sampleMillis, repeats, MIN_SERIES_SECONDS);
        }

        /**
         * The repeats of a pair unless --repeats says otherwise: on this project's 2-core machines a
         * child's time moves by up to a fifth from run to run, and the median of 5 keeps a ratio
         * within about 0.05 where one run did not keep it within 0.15 (docs/performance.md).
         */
        public static final int DEFAULT_REPEATS = 5;

        public Settings {
            if (repeats < 1) {
                throw new IllegalArgumentException("--repeats must be at least 1, not " + repeats);
            }
            if (timeoutSeconds < 1) {
                throw new IllegalArgumentException("--timeout-seconds must be at least 1, not " + timeoutSeconds);
            }
            if (sampleMillis < 1) {
                throw new IllegalArgumentException("--sample-millis must be at least 1, not " + sampleMillis);
            }
            if (!(minSeriesSeconds >= 0)) {
                throw new IllegalArgumentException("--min-series-seconds must not be negative, not " + minSeriesSeconds);
            }
        }
    }

    /**
     * The live heap of a child with the table and the write open and no rows written.
     *
     * @param plainOpenBytes with plain Paimon's write open, with the governed write's settings
     * @param plainDefaultsOpenBytes with plain Paimon's write open, with its defaults
     * @param governedOpenBytes with the governed write open; -1 when it refused to open
     */
    public record Baseline(ScaleTable table, String format, long plainOpenBytes, long plainDefaultsOpenBytes, long governedOpenBytes) {

        /** The largest of the three: what the writing children's heap holds before the budget. */
        public long bytes() {
            return Math.max(Math.max(plainOpenBytes, plainDefaultsOpenBytes), governedOpenBytes);
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("table", table.label());
            m.put("format", format);
            m.put("bytes", bytes());
            m.put("plainOpenBytes", plainOpenBytes);
            m.put("plainDefaultsOpenBytes", plainDefaultsOpenBytes);
            m.put("governedOpenBytes", governedOpenBytes);
            return m;
        }
    }

    private ScaleRunner() {}

    /**
     * Runs every baseline, cell and spill-series write of {@code grid} under {@code workDir} (the
     * caller removes it; each child's directory is removed when it ends). {@code progress} gets a
     * line per child.
     */
    public static ScaleReport run(ScaleGrid grid, Path workDir, Settings settings, Consumer<String> progress) throws Exception {
        long start = System.nanoTime();
        Map<String, Baseline> baselines = new LinkedHashMap<>();
        List<CellResult> cells = new ArrayList<>();
        int n = 0;
        for (ScaleCell cell : grid.cells()) {
            n++;
            Baseline b = baseline(baselines, cell, workDir, progress);
            long xmx = xmx(cell.budgetBytes(), b.bytes());
            Path dir = workDir.resolve("cell-" + n);
            List<RunSeries> runs = rounds(List.of(
                    () -> write(ScaleChild.GOVERNED, cell, xmx, dir.resolve("governed"), settings),
                    () -> write(ScaleChild.PLAIN, cell, xmx, dir.resolve("plain"), settings),
                    () -> write(ScaleChild.PLAIN_DEFAULTS, cell, xmx, dir.resolve("plain-defaults"), settings)),
                    settings.repeats(), settings.minSeriesSeconds());
            BenchTables.deleteTree(dir);
            CellResult r = new CellResult(cell, b.bytes(), xmx, runs.get(0), runs.get(1), runs.get(2));
            cells.add(r);
            progress.accept(String.format(Locale.ROOT, "cell %d/%d %s, -Xmx%dm: governed %s; plain %s; plain with defaults %s%s", n,
                    grid.cells().size(), cell, xmx / MIB, r.governed(), r.plain(), r.plainDefaults(),
                    r.throughputRatio() == null ? "" : String.format(Locale.ROOT, "; ratio %.2f", r.throughputRatio())));
        }
        List<SpillResult> spills = new ArrayList<>();
        n = 0;
        for (ScaleCell base : grid.spills()) {
            n++;
            Baseline b = baseline(baselines, base, workDir, progress);
            long inMemoryBudget = roundUpMib(2 * base.inputBytes());
            ScaleCell spilling = base.withBudget(Math.max(1, (long) (base.inputBytes() * SpillResult.SPILL_SHARE)));
            Path dir = workDir.resolve("spill-" + n);
            // Both with the in-memory write's heap: the series compares spilling with not spilling, not heaps.
            long heap = spillXmx(inMemoryBudget, b.bytes());
            List<RunSeries> runs = rounds(List.of(
                    () -> write(ScaleChild.GOVERNED, base.withBudget(inMemoryBudget), heap, dir.resolve("in-memory"), settings),
                    () -> write(ScaleChild.GOVERNED, spilling, heap, dir.resolve("spilling"), settings)),
                    settings.repeats(), settings.minSeriesSeconds());
            BenchTables.deleteTree(dir);
            RunSeries inMemory = runs.get(0);
            RunSeries spilled = runs.get(1);
            SpillResult r = new SpillResult(spilling, inMemoryBudget, b.bytes(), heap, inMemory, spilled);
            spills.add(r);
            progress.accept(String.format(Locale.ROOT, "spill %d/%d %s %s %d writers, budget %,d vs %,d bytes: in memory %s; spilling %s",
                    n, grid.spills().size(), base.table().label(), base.format(), base.writers(), inMemoryBudget, spilling.budgetBytes(),
                    inMemory, spilled));
        }
        return new ScaleReport(List.copyOf(baselines.values()), cells, spills, ScaleSummary.of(cells, spills),
                (System.nanoTime() - start) / 1_000_000);
    }

    /** One child of a side. */
    interface Child {
        ChildRun run() throws Exception;
    }

    /**
     * The least timed seconds each side adds up to before its rounds stop (when it has run {@code
     * --repeats} times). A write of a third of a second moves by a fifth from one child to the next,
     * so the median of five such runs moved its cell's ratio from 0.80 to 1.05 between grids (append
     * Avro, 8 writers: 10 alternating pairs by hand gave 0.94); a side whose runs are short runs
     * more of them, chosen by time and never by the result.
     */
    public static final double MIN_SERIES_SECONDS = 3.0;

    /** The most rounds short sides run to reach {@link #MIN_SERIES_SECONDS}. */
    public static final int MAX_ROUNDS = 15;

    /**
     * Runs every side once, in order; then more rounds while the first side and at least one other
     * have survived every run: {@code repeats} rounds in all, and more while a surviving side's
     * timed seconds add up to less than {@code minSeconds}, up to {@link #MAX_ROUNDS}. Round {@code
     * r} starts with side {@code r mod n} and goes on in order, so the side that goes first rotates
     * (two sides alternate); a side that failed is not run again. Returns the sides' series in the
     * order given.
     */
    static List<RunSeries> rounds(List<Child> sides, int repeats, double minSeconds) throws Exception {
        int n = sides.size();
        RunSeries[] series = new RunSeries[n];
        for (int i = 0; i < n; i++) {
            series[i] = RunSeries.of(sides.get(i).run());
        }
        for (int round = 1; (round < repeats || (round < MAX_ROUNDS && tooShort(series, minSeconds))) && goOn(series); round++) {
            for (int k = 0; k < n; k++) {
                int i = (round + k) % n;
                if (series[i].survived()) {
                    series[i] = series[i].and(sides.get(i).run());
                }
            }
        }
        return List.of(series);
    }

    /** Whether the first side and at least one other survived every run so far. */
    private static boolean goOn(RunSeries[] series) {
        if (!series[0].survived()) {
            return false;
        }
        for (int i = 1; i < series.length; i++) {
            if (series[i].survived()) {
                return true;
            }
        }
        return false;
    }

    /** Whether a side that survived has timed seconds adding up to less than {@code minSeconds}. */
    private static boolean tooShort(RunSeries[] series, double minSeconds) {
        for (RunSeries s : series) {
            if (s.survived() && s.timedSeconds() < minSeconds) {
                return true;
            }
        }
        return false;
    }

    /**
     * The children's {@code -Xmx}: the heap a child's JVM offers ({@link Runtime#maxMemory()}) is
     * budget plus baseline. The serial collector keeps one survivor space, 1/{@value #SURVIVOR_SHARE}
     * of {@code -Xmx} at its default ratios, out of {@code maxMemory()}, which the heap provider's
     * budget check reads; so {@code -Xmx} = (budget + baseline) x {@value #SURVIVOR_SHARE} / ({@value
     * #SURVIVOR_SHARE} - 1), rounded up to a MiB.
     */
    static long xmx(long budgetBytes, long baselineBytes) {
        return roundUpMib(Math.floorDiv((budgetBytes + baselineBytes) * SURVIVOR_SHARE, SURVIVOR_SHARE - 1) + 1);
    }

    /**
     * The spill series' {@code -Xmx}, the same for both children: {@link #xmx} of the in-memory
     * budget and the baseline plus {@value #SPILL_HEAP_MARGIN} bytes. The baseline is measured after
     * warm-ups at the grid's budget, and the in-memory child's warm-up at its own, 40 times larger,
     * budget leaves more live (0.3 MB more was measured); without a margin the heap provider refused
     * one in-memory run of five as a budget larger than the heap could give (append Parquet, 21:06
     * UTC). The series compares spilling with not spilling, not heaps, so the margin judges nothing.
     */
    static long spillXmx(long inMemoryBudgetBytes, long baselineBytes) {
        return xmx(inMemoryBudgetBytes, baselineBytes + SPILL_HEAP_MARGIN);
    }

    /** What {@link #spillXmx} adds to the baseline. */
    static final long SPILL_HEAP_MARGIN = 8 * MIB;

    /** Serial collector, default NewRatio 2 and SurvivorRatio 8: one survivor space is 1/30 of the heap. */
    static final long SURVIVOR_SHARE = 30;

    private static long roundUpMib(long bytes) {
        return (bytes + MIB - 1) / MIB * MIB;
    }

    private static Baseline baseline(Map<String, Baseline> known, ScaleCell cell, Path workDir, Consumer<String> progress) throws Exception {
        String key = cell.table().label() + " " + cell.format();
        Baseline b = known.get(key);
        if (b == null) {
            b = baseline(cell, workDir.resolve("baseline-" + key.replace(' ', '-')));
            known.put(key, b);
            progress.accept(String.format(Locale.ROOT,
                    "baseline %s: %,d bytes live with the write open (plain %,d, plain with defaults %,d, governed %,d)", key, b.bytes(),
                    b.plainOpenBytes(), b.plainDefaultsOpenBytes(), b.governedOpenBytes()));
        }
        return b;
    }

    /**
     * Measures the baseline of {@code cell}'s table kind and format in a child of its own, a second
     * child when the first failed (without a baseline no cell of the kind can run, so one stalled
     * child must not end the whole grid).
     */
    static Baseline baseline(ScaleCell cell, Path dir) throws Exception {
        ChildJvm.Ended ended = null;
        ChildRun run = null;
        for (int attempt = 0; attempt < BASELINE_ATTEMPTS && (run == null || !run.survived()); attempt++) {
            ended = ChildJvm.run(dir, BASELINE_HEAP, 300, ScaleChild.class, args("baseline", cell, dir, 1));
            BenchTables.deleteTree(dir);
            run = ChildRun.of(ended, 300);
        }
        if (!run.survived()) {
            throw new IllegalStateException("the baseline child of " + cell.table().label() + " " + cell.format() + " failed: "
                    + run.reason() + "; its output:\n" + ended.output());
        }
        return new Baseline(cell.table(), cell.format(), run.value("plainOpenBytes"), run.value("plainDefaultsOpenBytes"),
                run.value("governedOpenBytes"));
    }

    /** One writing child, {@code mode} one of {@link ScaleChild}'s writing modes, in {@code dir} (removed after). */
    static ChildRun write(String mode, ScaleCell cell, long xmx, Path dir, Settings settings) throws Exception {
        ChildJvm.Ended ended = ChildJvm.run(dir, xmx, settings.timeoutSeconds(), ScaleChild.class, args(mode, cell, dir, settings.sampleMillis()));
        BenchTables.deleteTree(dir);
        return ChildRun.of(ended, settings.timeoutSeconds());
    }

    private static List<String> args(String mode, ScaleCell cell, Path dir, long sampleMillis) {
        List<String> args = new ArrayList<>();
        args.add(mode);
        args.addAll(cell.args());
        args.add(dir.resolve("work").toString());
        args.add(Long.toString(sampleMillis));
        return args;
    }
}
