package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The read-lag benchmark: how stale a deletion-vector table looks to a batch reader while a
 * streaming write feeds it a little faster than one compaction thread drains, with {@code
 * compaction.task-threads} 1, 2 and -1 (one per active bucket), side by side in one JVM.
 *
 * <p>How: a calibration run with one compaction thread and no rate limit gives a first estimate of
 * what one thread drains: over its second half, the rows its compactions moved out of level 0 per
 * second ({@link LagRun.Result#drainedRowsPerSec}; in a deletion-vector table a row is visible to a
 * batch reader once it left level 0). The writer outruns the thread, so the thread is always busy,
 * but a writer that takes a core takes it from compaction too. Further runs, as long as the
 * measured ones, feed one thread a rate at a limit ({@link Check}) until one saturated it: the
 * thread fell behind, busy all the time, at a rate a little past what it drained; what it drained
 * then is what one thread drains. Every setting is then fed {@code overload} times that rate
 * ({@link LagRun}), on a copy of one table filled once ({@link LagTable#prepare}); the repetitions
 * rotate the order of the settings (1, 2, -1 / 2, -1, 1 / -1, 1, 2), and the ratios are paired
 * within a repetition, since the machine's noise then falls on the settings alike. Each run's
 * steady lag is {@link SteadyState}'s; the reported ratios are the medians over the repetitions.
 * The calibration run also warms the JIT up.
 *
 * <p>Not thread-safe; one run at a time per work directory.
 */
public final class ReadLag {

    public static final List<String> SETTINGS = List.of("1", "2", "-1");
    /**
     * Key space of the full and quick runs: many times the rows of a checkpoint, so most rows update
     * a key and deletion vectors have work, and large enough that a compaction's lookups and
     * rewrites cost several times what writing the rows does, the regime of compactions that take
     * longer than a checkpoint (with 1,000,000 keys they cost about the same, and on two cores the
     * writer then took the CPU a second compaction thread needed; with 100,000 the writer was the
     * limit).
     */
    public static final int KEYS = 5_000_000;
    /** Most steps of the calibration's second part ({@link Check}). */
    static final int MAX_CHECK_STEPS = 6;
    /** Every tenth probe also reads the new rows. */
    static final int CROSS_CHECK_EVERY = 10;
    private static final long SEED = 42;

    /**
     * The run's sizes.
     *
     * @param calibrationMillis the calibration run
     * @param runMillis each measured run
     * @param repetitions measured runs per setting
     * @param skipMillis start of each run left out of the steady-state analysis
     * @param windowMillis the analysis window
     * @param checkpointMillis interval of prepareCommit + commit
     * @param probeMillis interval of probes
     * @param overload offered rate / calibrated rate
     * @param budgetBytes the governed budget
     * @param keys key space of every run, the calibration's too (the drain rate depends on it)
     */
    public record Sizes(long calibrationMillis, long runMillis, int repetitions, long skipMillis, long windowMillis, long checkpointMillis,
            long probeMillis, double overload, long budgetBytes, int keys) {

        public static final long BUDGET = 64L << 20;
        /** The offered rate over a saturated thread's drain rate: a little above. */
        public static final double OVERLOAD = 1.15;

        public Sizes {
            if (repetitions < 1 || runMillis < skipMillis + windowMillis || windowMillis < 1 || checkpointMillis < 1 || probeMillis < 1
                    || calibrationMillis < 2 * checkpointMillis || overload <= 0 || budgetBytes < 1 || keys < 1) {
                throw new IllegalArgumentException("bad sizes: " + "repetitions " + repetitions + ", run " + runMillis + " ms, skip "
                        + skipMillis + " ms, window " + windowMillis + " ms, calibration " + calibrationMillis + " ms, overload " + overload);
            }
        }

        /**
         * About fifteen to seventeen minutes on two cores: the fill, a 20 s first estimate, up to six
         * check steps (usually two or three) and 3 repetitions of 60 s runs (20 s skipped, 8 windows).
         */
        public static Sizes full() {
            return new Sizes(20_000, 60_000, 3, 20_000, 5_000, 1_000, 250, OVERLOAD, BUDGET, KEYS);
        }

        /**
         * About seven minutes: the fill, a 10 s first estimate, up to six check steps and 1
         * repetition of 40 s runs (15 s skipped, 5 windows).
         */
        public static Sizes quick() {
            return new Sizes(10_000, 40_000, 1, 15_000, 5_000, 1_000, 250, OVERLOAD, BUDGET, KEYS);
        }

        /** About ten seconds, for tests: the numbers mean little. */
        public static Sizes tiny() {
            return new Sizes(1_000, 2_500, 1, 500, 500, 250, 50, OVERLOAD, 16L << 20, 2_000);
        }

        /** These sizes with {@code seconds} per measured run (the skip scaled along, at most a third). */
        public Sizes withRunSeconds(int seconds) {
            long run = seconds * 1000L;
            long skip = Math.min(skipMillis, run / 3);
            return new Sizes(calibrationMillis, run, repetitions, skip, windowMillis, checkpointMillis, probeMillis, overload, budgetBytes, keys);
        }

        public Sizes withRepetitions(int n) {
            return new Sizes(calibrationMillis, runMillis, n, skipMillis, windowMillis, checkpointMillis, probeMillis, overload, budgetBytes, keys);
        }

        /** These sizes with a checkpoint every {@code millis} (probes at most half as far apart). */
        public Sizes withCheckpointMillis(long millis) {
            return new Sizes(calibrationMillis, runMillis, repetitions, skipMillis, windowMillis, millis, Math.min(probeMillis,
                    Math.max(1, millis / 2)), overload, budgetBytes, keys);
        }

        /** These sizes over {@code n} keys (a larger key space makes each compaction's lookups and rewrites costlier). */
        public Sizes withKeys(int n) {
            return new Sizes(calibrationMillis, runMillis, repetitions, skipMillis, windowMillis, checkpointMillis, probeMillis, overload,
                    budgetBytes, n);
        }

        /** These sizes under a governed budget of {@code bytes}. */
        public Sizes withBudgetBytes(long bytes) {
            return new Sizes(calibrationMillis, runMillis, repetitions, skipMillis, windowMillis, checkpointMillis, probeMillis, overload,
                    bytes, keys);
        }

        public Sizes withOverload(double factor) {
            return new Sizes(calibrationMillis, runMillis, repetitions, skipMillis, windowMillis, checkpointMillis, probeMillis, factor,
                    budgetBytes, keys);
        }
    }

    /**
     * What the calibration run measured, the first estimate of what one thread drains: over its
     * second half, the rows compaction moved out of level 0 per second ({@link
     * LagRun.Result#drainedRowsPerSec}); when none committed then, over the whole run (with
     * checkpoints every 500 ms the unlimited writer was blocked the whole second half, a forced
     * bucket's compaction outlasting it); when none committed at all (a loaded machine), the rows
     * made visible per second from the calibration's middle (or the first visible row, if later) to
     * its end, when that span is at least a quarter of the calibration; else the rate the writer
     * wrote, an upper bound.
     *
     * @param drainedRowsPerSec rows moved out of level 0 per second over the second half, or over
     *     the whole run when none were in the second half
     * @param visibleRowsPerSec rows made visible per second over the span
     * @param visibleSeconds the span's length; 0 when nothing became visible
     * @param writtenRowsPerSec rows written per second over the second half, or over the whole run
     *     when the writer wrote nothing in the second half
     * @param seconds the calibration's length
     */
    public record Calibration(double drainedRowsPerSec, double visibleRowsPerSec, double visibleSeconds, double writtenRowsPerSec,
            double seconds) {

        static Calibration of(LagRun.Result r, long calibrationMillis) {
            long first = r.firstVisibleMillis();
            long from = Math.max(calibrationMillis / 2, first);
            double span = first < 0 ? 0 : Math.max(0, calibrationMillis - from) / 1e3;
            double drained = r.drainedRowsPerSec(calibrationMillis / 2, calibrationMillis);
            double written = r.writtenRowsPerSec(calibrationMillis / 2, calibrationMillis);
            return new Calibration(drained > 0 ? drained : r.drainedRowsPerSec(0, calibrationMillis),
                    span > 0 ? r.visibleRowsPerSec(from, calibrationMillis) : 0, span,
                    written > 0 ? written : r.achievedRowsPerSec(), calibrationMillis / 1e3);
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

    /**
     * A step of the calibration's second part: one thread fed a rate at a limit for as long as a
     * measured run and judged over the same part of it (from the run's skip to its end): a
     * compaction's cost changes as the table's levels grow, so a step shorter than the runs measures
     * another table (over 5,000,000 keys a 6 s step kept up at 191,658 rows/s, while in the 28 s runs
     * one thread let the writer write about 76,000).
     *
     * <p>The thread fell behind when the writer was held back (it wrote less than 0.98 of the rate
     * over the part) or the lag rose (the lag's least-squares slope over the part); then what it
     * drained is counted: the rows its compactions moved out of level 0 per second ({@link
     * LagRun.Result#drainedRowsPerSec}). Else it kept up, and its busy share tells about how much
     * more it could drain (an underestimate: part of a compaction's cost is per compaction, not per
     * row), so the next step goes {@value #PAST} times past that. The steps end at one that
     * {@linkplain #saturated saturated} the thread: it fell behind, busy at least {@value
     * #SATURATED} of the time, at {@value #FROM_PAST} to {@value #TO_PAST} times what it drained (else
     * the next step goes {@value #TARGET} times past what it drained). What a saturated thread
     * drains, counted per compaction, is one number: 33,620, 33,114 and 33,807 rows/s in three runs
     * at 38,494 to 42,244 rows/s offered. Read off the lag's slope, or extrapolated from a step that
     * kept up, the drain rate landed on either side of the rate where one thread stops keeping up
     * from run to run (offered 37,793 to 42,385 rows/s over the same table).
     *
     * @param offeredRowsPerSec the rate offered
     * @param busyRatio the write's {@code compactionBusyRatio}: the share of the run the thread compacted
     * @param achievedOverOffered rows written per second over the judged part / offered
     * @param visibleOverOffered rows made visible per second over the judged part / offered: 1 minus
     *     the slope of the lag (least squares; at least 0)
     * @param drainedOverOffered rows moved out of level 0 per second over the judged part / offered
     * @param step which step this was, from 1
     */
    public record Check(double offeredRowsPerSec, double busyRatio, double achievedOverOffered, double visibleOverOffered,
            double drainedOverOffered, int step) {

        /** Extrapolations beyond this factor are not trusted: the busy share is bounded below by it. */
        static final double MIN_BUSY = 0.2;
        /** A writer that wrote less than this share of the rate was held back. */
        static final double HELD_BACK = 0.98;
        /** A lag rising by more than this many ms per ms means the thread fell behind. */
        static final double RISING_SLOPE = 0.05;
        /** After a step that kept up, the next goes this many times past its extrapolation. */
        static final double PAST = 1.15;
        /** A thread busy at least this share of the step was saturated, if it fell behind. */
        static final double SATURATED = 0.95;
        /** A saturating step's rate is at least this many times what the thread drained: clearly past it. */
        static final double FROM_PAST = 1.1;
        /** ... and at most this many: the writer not much busier than in the runs. */
        static final double TO_PAST = 1.5;
        /** After a step that fell behind without saturating the thread, the next goes this far past what it drained. */
        static final double TARGET = 1.25;

        /** The check of run {@code r} (offered a rate), judged from {@code fromMillis} to its end. */
        static Check of(LagRun.Result r, long fromMillis, double busyRatio, int step) {
            long to = r.settings().durationMillis();
            double rate = r.settings().offeredRowsPerSec();
            return new Check(rate, busyRatio, r.writtenRowsPerSec(fromMillis, to) / rate,
                    Math.max(0, 1 - r.series().lagSlope(fromMillis, to)), r.drainedRowsPerSec(fromMillis, to) / rate, step);
        }

        /**
         * What one thread drains: when it fell behind, the rows its compactions moved out of level 0
         * per second (or, when none committed in the judged part, the lower of the rate the writer
         * was let write and the rate rows became visible); else the offered rate over the busy share
         * (at least {@value #MIN_BUSY}). At least 1.
         */
        public double drainRowsPerSec() {
            if (!behind()) {
                return Math.max(1, offeredRowsPerSec / Math.min(1, Math.max(MIN_BUSY, busyRatio)));
            }
            double share = drainedOverOffered > 0 ? drainedOverOffered : Math.min(achievedOverOffered, visibleOverOffered);
            return Math.max(1, share * offeredRowsPerSec);
        }

        /**
         * Whether this step saturated the thread and counted what it drained: it fell behind, was
         * busy at least {@value #SATURATED} of the time, compactions committed, and the rate was
         * {@value #FROM_PAST} to {@value #TO_PAST} times what it drained.
         */
        public boolean saturated() {
            double past = offeredRowsPerSec / drainRowsPerSec();
            return behind() && busyRatio >= SATURATED && drainedOverOffered > 0 && past >= FROM_PAST && past <= TO_PAST;
        }

        /**
         * The rate of the next step: after one that kept up, {@value #PAST} times its extrapolation;
         * after one that fell behind, {@value #TARGET} times what it drained.
         */
        public double nextRowsPerSec() {
            return (behind() ? TARGET : PAST) * drainRowsPerSec();
        }

        /** The writer was held back, or the lag rose: the thread fell behind. */
        public boolean behind() {
            return achievedOverOffered < HELD_BACK || visibleOverOffered < 1 - RISING_SLOPE;
        }
    }

    /** One measured run and its analysis. */
    public record Run(String threads, int repetition, LagSeries series, SteadyState steady, double achievedOverOffered,
            long checkpointMillisP99, long peakReservedBytes, long compactions, double compactionBusyRatio, long spills, int probeMismatches,
            int crossChecks, double gcShare) {}

    private ReadLag() {}

    /** Calibrates and measures under {@code workDir} (tables are deleted after each run); {@code progress} gets a line per step. */
    public static LagReport run(Path workDir, Sizes sizes, Consumer<String> progress) throws Exception {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        Path prepared = workDir.resolve("table");
        try {
            progress.accept(String.format(Locale.ROOT, "filling a table with %,d keys and ageing it with half as many updates"
                    + " (each run starts from a copy) ...", sizes.keys()));
            LagTable.prepare(prepared.resolve("warehouse"), sizes.keys(), SEED + 1, prepared);
            return measure(workDir, prepared.resolve("warehouse"), sizes, load, progress);
        } finally {
            BenchTables.deleteTree(prepared);
        }
    }

    private static LagReport measure(Path workDir, Path table, Sizes sizes, double load, Consumer<String> progress) throws Exception {
        progress.accept(String.format(Locale.ROOT, "calibration: task-threads 1, no rate limit, %.1f s (load average %.2f) ...",
                sizes.calibrationMillis() / 1e3, load));
        LagRun.Result calibration = once(workDir, table, "calibration", new LagRun.Settings("1", 0, sizes.calibrationMillis(),
                sizes.checkpointMillis(), sizes.probeMillis(), 0, sizes.budgetBytes(), sizes.keys(), SEED));
        Calibration cal = Calibration.of(calibration, sizes.calibrationMillis());
        int keys = sizes.keys();
        double rate = Check.PAST * cal.rowsPerSec();
        progress.accept(String.format(Locale.ROOT, "first estimate %,.0f rows/s (%s); checking at %,.0f rows/s ...", cal.rowsPerSec(),
                switch (cal.source()) {
                    case "drained" -> "rows moved out of level 0 over the second half";
                    case "visible" -> "rows made visible over " + Math.round(cal.visibleSeconds()) + " s: no compaction committed";
                    default -> "rows written: too little became visible";
                }, rate));
        Check check;
        for (int step = 1; ; step++) {
            LagRun.Result checked = once(workDir, table, "calibration-check-" + step, new LagRun.Settings("1", rate, sizes.runMillis(),
                    sizes.checkpointMillis(), sizes.probeMillis(), 0, sizes.budgetBytes(), keys, SEED));
            check = Check.of(checked, sizes.skipMillis(), checked.metrics().compactionBusyRatio(), step);
            if (check.saturated() || step == MAX_CHECK_STEPS) {
                break;
            }
            progress.accept(String.format(Locale.ROOT, "at %,.0f rows/s: busy %.2f, %s; written %.2f, made visible %.2f and moved"
                    + " out of level 0 %.2f of it; checking at %,.0f rows/s ...", rate, check.busyRatio(), check.behind() ? "fell behind"
                    : "kept up", check.achievedOverOffered(), check.visibleOverOffered(), check.drainedOverOffered(),
                    check.nextRowsPerSec()));
            rate = check.nextRowsPerSec();
        }
        double calibrated = check.drainRowsPerSec();
        double offered = sizes.overload() * calibrated;
        progress.accept(String.format(Locale.ROOT, "one thread drains %,.0f rows/s (at %,.0f rows/s: busy %.2f, %s, %s; moved out of"
                + " level 0 %.2f of it); offering %,.0f rows/s (x%.2f) over %,d keys", calibrated, check.offeredRowsPerSec(),
                check.busyRatio(), check.behind() ? "fell behind" : "kept up", check.saturated() ? "saturated" : "not saturated",
                check.drainedOverOffered(), offered, sizes.overload(), keys));
        List<Run> runs = new ArrayList<>();
        for (int rep = 0; rep < sizes.repetitions(); rep++) {
            for (int i = 0; i < SETTINGS.size(); i++) {
                String threads = SETTINGS.get((rep + i) % SETTINGS.size());
                LagRun.Settings settings = new LagRun.Settings(threads, offered, sizes.runMillis(), sizes.checkpointMillis(),
                        sizes.probeMillis(), CROSS_CHECK_EVERY, sizes.budgetBytes(), keys, SEED);
                LagRun.Result r = once(workDir, table, "run-" + rep + "-" + threads.replace('-', 'm'), settings);
                Run run = analyse(r, rep, sizes);
                runs.add(run);
                progress.accept(String.format(Locale.ROOT, "repetition %d/%d task-threads %s: lag %,.0f ms (%s), level-0 files %.1f,"
                        + " achieved/offered %.2f, compaction threads busy %.2f, peak/budget %.2f", rep + 1, sizes.repetitions(), threads,
                        run.steady().meanMillis(), run.steady().steady() ? "steady" : "not steady", run.steady().level0Mean(),
                        run.achievedOverOffered(), run.compactionBusyRatio(), run.peakReservedBytes() / (double) sizes.budgetBytes()));
            }
        }
        return new LagReport(sizes, load, cal, check, offered, keys, runs);
    }

    /** One run on a copy of {@code table} (a prepared warehouse) under {@code workDir/name}, deleted after. */
    private static LagRun.Result once(Path workDir, Path table, String name, LagRun.Settings settings) throws Exception {
        Path dir = workDir.resolve(name);
        try {
            BenchTables.copyTree(table, dir.resolve("warehouse"));
            return LagRun.run(dir.resolve("warehouse"), dir, settings);
        } finally {
            BenchTables.deleteTree(dir);
        }
    }

    static Run analyse(LagRun.Result r, int repetition, Sizes sizes) {
        SteadyState steady = SteadyState.of(r.series(), sizes.skipMillis(), sizes.windowMillis(), sizes.runMillis());
        double offered = r.settings().offeredRowsPerSec();
        List<Long> checkpoints = r.checkpointMillis().isEmpty() ? List.of(0L) : r.checkpointMillis();
        return new Run(r.settings().threads(), repetition, r.series(), steady, offered > 0 ? r.achievedRowsPerSec() / offered : 1,
                BenchTables.percentile(checkpoints, 99), r.metrics().peakReservedBytes(), r.metrics().compactionCount(),
                r.metrics().compactionBusyRatio(), r.metrics().spillCount(), r.probeMismatches(), r.crossChecks(), r.gcShare());
    }

    /** The runs grouped by setting, in {@link #SETTINGS} order. */
    static Map<String, List<Run>> bySetting(List<Run> runs) {
        Map<String, List<Run>> by = new LinkedHashMap<>();
        for (String s : SETTINGS) {
            by.put(s, runs.stream().filter(r -> r.threads().equals(s)).toList());
        }
        return by;
    }
}
