package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The read-lag benchmark: how much a deletion-vector table can be fed while a batch reader's view of
 * it keeps up, with the governed write's {@code compaction.task-threads} 1, 2 and -1 (one per active
 * bucket) and plain Paimon's single compaction thread beside them, on one table, one clock and one
 * machine.
 *
 * <p>How: a table of {@link Sizes#keys} keys is filled and aged once ({@link LagTable#prepare}); a
 * short run of one governed thread without a rate limit anchors the rate search ({@link Anchor});
 * then each setting climbs the same staircase of offered rates ({@link Staircase}) on a copy of the
 * table, in a JVM of its own ({@link LagRun}), until a stair's lag is not steady ({@link
 * Steadiness}). Per setting that gives the highest rate it sustains and, at the highest stair every
 * setting sustained, its steady lag ({@link LagReport}). The settings run in an order rotated by
 * one per repetition, the first order taken from the clock, so that no setting always runs first.
 *
 * <p>Not thread-safe; one run at a time per work directory.
 */
public final class ReadLag {

    /** The governed settings, {@code compaction.task-threads} values, and the plain Paimon lines. */
    public static final List<String> ALL_LINES = List.of("1", "2", "-1", LagChild.PLAIN, LagChild.PLAIN_DEFAULTS);
    /**
     * Key space of the full and quick runs: large enough that a compaction's lookups and rewrites
     * cost several times what writing the rows does, the regime of compactions that take longer than
     * a checkpoint (with 1,000,000 keys they cost about the same, and on two cores the writer then
     * took the CPU a second compaction thread needed; with 100,000 the writer was the limit).
     */
    public static final int KEYS = 5_000_000;
    /** Every tenth probe also reads the new rows. */
    static final int CROSS_CHECK_EVERY = 10;
    /** The period of each child's own full collections ({@link io.paimongov.benchmarks.LiveHeapSampler}): the same for every setting. */
    static final long HEAP_SAMPLE_MILLIS = 2_000;
    private static final long SEED = 42;

    /**
     * The run's sizes.
     *
     * @param anchorMillis the anchor's measured span, from its first committed compaction
     * @param warmUpMillis the least time the first stair runs before it is judged
     * @param stairMillis each stair
     * @param maxStairs stairs at most per run
     * @param repetitions runs per setting
     * @param checkpointMillis interval of prepareCommit + commit, and the bins of {@link Steadiness}
     * @param probeMillis interval of probes
     * @param heapSampleMillis the period of the children's own full collections
     * @param budgetBytes the governed budget
     * @param keys key space of every run, the anchor's too
     * @param lines the settings run, in the order of the first rotation
     */
    public record Sizes(long anchorMillis, long warmUpMillis, long stairMillis, int maxStairs, int repetitions, long checkpointMillis,
            long probeMillis, long heapSampleMillis, long budgetBytes, int keys, List<String> lines) {

        public static final long BUDGET = 64L << 20;
        /** Stairs at most per run: the grid spans 1.25^7, about 4.8 times the first stair. */
        public static final int MAX_STAIRS = 8;

        public Sizes {
            lines = List.copyOf(lines);
            if (repetitions < 1 || stairMillis < 2 * checkpointMillis || checkpointMillis < 1 || probeMillis < 1 || warmUpMillis < 0
                    || maxStairs < 1 || anchorMillis < 2 * checkpointMillis || heapSampleMillis < 1 || budgetBytes < 1 || keys < 1
                    || lines.isEmpty() || !lines.contains("1") || !ALL_LINES.containsAll(lines)) {
                throw new IllegalArgumentException("bad sizes: repetitions " + repetitions + ", stair " + stairMillis + " ms, checkpoint "
                        + checkpointMillis + " ms, anchor " + anchorMillis + " ms, stairs " + maxStairs + ", lines " + lines);
            }
            // The judged half of a stair needs two whole checkpoint intervals (Steadiness).
            if (stairMillis / 2 < 2 * checkpointMillis) {
                throw new IllegalArgumentException("a stair of " + stairMillis + " ms is too short for checkpoints every " + checkpointMillis
                        + " ms: its second half must hold two");
            }
        }

        /**
         * About half an hour on two cores: the fill, the anchor (20 s from its first compaction), and
         * 3 repetitions of five settings climbing stairs of 20 s, the first after a 20 s warm-up.
         */
        public static Sizes full() {
            return new Sizes(20_000, 20_000, 20_000, MAX_STAIRS, 3, 1_000, 250, HEAP_SAMPLE_MILLIS, BUDGET, KEYS, ALL_LINES);
        }

        /**
         * About seven minutes: the fill, the anchor (10 s from its first compaction), one repetition of
         * four settings (plain Paimon with its defaults left out) climbing stairs of 15 s, the first
         * after a 15 s warm-up.
         */
        public static Sizes quick() {
            return new Sizes(10_000, 15_000, 15_000, MAX_STAIRS, 1, 1_000, 250, HEAP_SAMPLE_MILLIS, BUDGET, KEYS, ALL_LINES.subList(0, 4));
        }

        /** About a minute, for tests: the numbers mean little. */
        public static Sizes tiny() {
            return new Sizes(1_500, 500, 1_500, 2, 1, 250, 50, 500, 16L << 20, 2_000, ALL_LINES.subList(0, 4));
        }

        /** These sizes with stairs of {@code seconds}. */
        public Sizes withStairSeconds(int seconds) {
            return new Sizes(anchorMillis, warmUpMillis, seconds * 1000L, maxStairs, repetitions, checkpointMillis, probeMillis,
                    heapSampleMillis, budgetBytes, keys, lines);
        }

        public Sizes withRepetitions(int n) {
            return new Sizes(anchorMillis, warmUpMillis, stairMillis, maxStairs, n, checkpointMillis, probeMillis, heapSampleMillis,
                    budgetBytes, keys, lines);
        }

        /** These sizes with a checkpoint every {@code millis} (probes at most half as far apart). */
        public Sizes withCheckpointMillis(long millis) {
            return new Sizes(anchorMillis, warmUpMillis, stairMillis, maxStairs, repetitions, millis,
                    Math.min(probeMillis, Math.max(1, millis / 2)), heapSampleMillis, budgetBytes, keys, lines);
        }

        /** These sizes over {@code n} keys. */
        public Sizes withKeys(int n) {
            return new Sizes(anchorMillis, warmUpMillis, stairMillis, maxStairs, repetitions, checkpointMillis, probeMillis,
                    heapSampleMillis, budgetBytes, n, lines);
        }

        /** These sizes under a governed budget of {@code bytes}. */
        public Sizes withBudgetBytes(long bytes) {
            return new Sizes(anchorMillis, warmUpMillis, stairMillis, maxStairs, repetitions, checkpointMillis, probeMillis,
                    heapSampleMillis, bytes, keys, lines);
        }

        /** These sizes running {@code settings}, which must include "1". */
        public Sizes withLines(List<String> settings) {
            return new Sizes(anchorMillis, warmUpMillis, stairMillis, maxStairs, repetitions, checkpointMillis, probeMillis,
                    heapSampleMillis, budgetBytes, keys, settings);
        }
    }

    private ReadLag() {}

    /** Prepares, anchors and measures under {@code workDir} (everything is deleted after); {@code progress} gets a line per step. */
    public static LagReport run(Path workDir, Sizes sizes, Consumer<String> progress) throws Exception {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        Path prepared = workDir.resolve("table");
        try {
            progress.accept(String.format(Locale.ROOT, "filling a table with %,d keys and ageing it with %,d updates (load average %.2f)"
                    + " ...", sizes.keys(), LagTable.ageRows(sizes.keys()), load));
            LagTable.prepare(prepared.resolve("warehouse"), sizes.keys(), SEED + 1, prepared, sizes.budgetBytes());
            return measure(workDir, prepared.resolve("warehouse"), sizes, load, progress);
        } finally {
            BenchTables.deleteTree(prepared);
        }
    }

    private static LagReport measure(Path workDir, Path table, Sizes sizes, double load, Consumer<String> progress) throws Exception {
        progress.accept(String.format(Locale.ROOT, "anchor: task-threads 1, no rate limit, %.1f s from its first committed compaction"
                + " ...", sizes.anchorMillis() / 1e3));
        LagRun.Result anchorRun = once(workDir, table, "anchor", settings("1", null, sizes));
        if (anchorRun.failure() != null || anchorRun.stairStarts().size() < 2) {
            throw new IllegalStateException("bench lag: the anchor run failed: "
                    + (anchorRun.failure() != null ? anchorRun.failure() : "it ended before its measured span"));
        }
        Anchor anchor = Anchor.of(anchorRun, anchorRun.stairStarts().get(0), anchorRun.stairStarts().get(1));
        Staircase stairs = Staircase.from(anchor.rowsPerSec(), sizes.warmUpMillis(), sizes.stairMillis(), sizes.maxStairs());
        progress.accept(String.format(Locale.ROOT, "anchor %,.0f rows/s (%s, from %.1f s); stairs from %,.0f rows/s, x%.2f each, %.0f s"
                + " each, the first after a %.0f s warm-up until steady, at most %d", anchor.rowsPerSec(), anchor.source(),
                anchorRun.stairStarts().get(0) / 1e3, stairs.rates().get(0), Staircase.FACTOR, sizes.stairMillis() / 1e3,
                sizes.warmUpMillis() / 1e3, stairs.stairs()));
        int first = (int) ((System.currentTimeMillis() / 60_000) % sizes.lines().size());
        List<List<String>> orders = new ArrayList<>();
        List<Run> runs = new ArrayList<>();
        for (int rep = 0; rep < sizes.repetitions(); rep++) {
            List<String> order = rotated(sizes.lines(), first + rep);
            orders.add(order);
            for (String line : order) {
                LagRun.Result r = once(workDir, table, "run-" + rep + "-" + line.replace('-', 'm'), settings(line, stairs, sizes));
                Run run = Run.of(r, rep);
                runs.add(run);
                progress.accept(String.format(Locale.ROOT, "repetition %d/%d %s: %s", rep + 1, sizes.repetitions(), label(line),
                        run.describe(sizes.budgetBytes())));
            }
        }
        double loadEnd = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return new LagReport(sizes, load, loadEnd, anchor, stairs, orders, runs);
    }

    /** {@code lines} rotated left by {@code by}. */
    static List<String> rotated(List<String> lines, int by) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            order.add(lines.get((by + i) % lines.size()));
        }
        return order;
    }

    /** How progress lines and the chart name a setting. */
    public static String label(String line) {
        return LagChild.governed(line) ? "task-threads " + line : line;
    }

    private static LagRun.Settings settings(String line, Staircase stairs, Sizes sizes) {
        // The child's own limit, beyond which it stops whatever the harness says: a climb's longest,
        // one stair more for the judging; the anchor's first compaction as late as a first stair's end.
        long firstStairMax = new Staircase(sizes.warmUpMillis(), sizes.stairMillis(), List.of(1.0)).firstStairMaxMillis();
        long max = stairs != null ? stairs.maxDurationMillis() + sizes.stairMillis() : firstStairMax + sizes.anchorMillis();
        return new LagRun.Settings(line, stairs, sizes.anchorMillis(), max, sizes.checkpointMillis(), sizes.probeMillis(),
                stairs == null ? 0 : CROSS_CHECK_EVERY, sizes.budgetBytes(), sizes.keys(), SEED, sizes.heapSampleMillis());
    }

    /** One run on a copy of {@code table} (a prepared warehouse) under {@code workDir/name}, deleted after. */
    private static LagRun.Result once(Path workDir, Path table, String name, LagRun.Settings settings) throws Exception {
        Path dir = workDir.resolve(name);
        try {
            return LagRun.run(dir, table, settings);
        } finally {
            BenchTables.deleteTree(dir);
        }
    }
}
