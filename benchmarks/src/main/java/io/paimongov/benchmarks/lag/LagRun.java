package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.BenchTables;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.table.FileStoreTable;

/**
 * One lag run, as a streaming engine runs it: the writing task in a JVM of its own ({@link
 * LagChild}), a committing thread here that commits each checkpoint the child prepared with Paimon's
 * {@code StreamTableCommit} (what Flink's committer does), a probe thread here that looks at the
 * table every probe interval ({@link LagProbe}), and, for a rate search, this thread judging each
 * stair as it ends ({@link Steadiness}) and stopping the child at the first that was not steady.
 * Every clock is the machine's ({@code System.currentTimeMillis}), the child's schedule included.
 *
 * <p>Not thread-safe; {@link #run} starts and joins its own threads and the child.
 */
final class LagRun {

    /** What each child may take beyond its schedule (JVM start, baseline, close) before it is killed. */
    static final long CHILD_SLACK_SECONDS = 180;

    /**
     * @param line "1", "2" or "-1" (governed, the {@code compaction.task-threads} value), {@value
     *     LagChild#PLAIN} or {@value LagChild#PLAIN_DEFAULTS}
     * @param staircase the rate search; null for the anchor's run (rows as fast as the writer goes,
     *     {@code ts} the time it wrote them, until {@code anchorMillis} after its first compaction
     *     committed)
     * @param anchorMillis how long the anchor's run measures after its first committed compaction
     * @param maxMillis the longest the child writes if nothing stops it sooner
     * @param checkpointMillis the interval of prepareCommit + commit
     * @param probeMillis the interval of probes
     * @param crossCheckEvery every n-th probe also reads the new rows to check the statistics
     * @param budgetBytes the governed budget (plain Paimon's options are matched to it)
     * @param keys key space
     * @param seed row seed
     * @param heapSampleMillis the period of the child's own full collections ({@link io.paimongov.benchmarks.LiveHeapSampler})
     */
    record Settings(String line, Staircase staircase, long anchorMillis, long maxMillis, long checkpointMillis, long probeMillis,
            int crossCheckEvery, long budgetBytes, int keys, long seed, long heapSampleMillis) {

        /** The child's arguments, read back by {@link #fromChildArgs}. */
        List<String> childArgs(Path warehouse, Path spill, Path result) {
            List<String> a = new ArrayList<>(List.of("line=" + line, "anchor=" + anchorMillis, "max=" + maxMillis,
                    "checkpoint=" + checkpointMillis, "budget=" + budgetBytes, "keys=" + keys, "seed=" + seed,
                    "heapSample=" + heapSampleMillis, "warehouse=" + warehouse, "spill=" + spill, "result=" + result));
            if (staircase != null) {
                a.add("warmUp=" + staircase.warmUpMillis());
                a.add("stair=" + staircase.stairMillis());
                a.add("rates=" + String.join(",", staircase.rates().stream().map(r -> Double.toString(r)).toList()));
            }
            return a;
        }

        static Settings fromChildArgs(Map<String, String> a) {
            Staircase stairs = a.containsKey("rates")
                    ? new Staircase(Long.parseLong(a.get("warmUp")), Long.parseLong(a.get("stair")),
                            Arrays.stream(a.get("rates").split(",")).map(Double::valueOf).toList())
                    : null;
            return new Settings(a.get("line"), stairs, Long.parseLong(a.get("anchor")), Long.parseLong(a.get("max")),
                    Long.parseLong(a.get("checkpoint")), 0, 0, Long.parseLong(a.get("budget")), Integer.parseInt(a.get("keys")),
                    Long.parseLong(a.get("seed")), Long.parseLong(a.get("heapSample")));
        }
    }

    /**
     * How a run went.
     *
     * @param settings its settings
     * @param failure why it failed, one line; null when it ran
     * @param series lag and level-0 files over the run
     * @param verdicts each stair judged, in order, up to the first that was not steady
     * @param stairStarts when each stair run started, ms from the run's start (as the harness told
     *     the child); for the anchor's run, where its measured span starts (its first committed
     *     compaction) and ends
     * @param commits the checkpoints committed, in order
     * @param child what the child reported at its end ({@link LagChild}'s result file); empty when it failed
     * @param probeMismatches cross-checks where the rows' newest ts differed from the statistics'
     * @param crossChecks cross-checks made
     */
    record Result(Settings settings, String failure, LagSeries series, List<Steadiness.Verdict> verdicts, List<Long> stairStarts,
            List<Commit> commits, Map<String, String> child, int probeMismatches, int crossChecks) {

        long value(String key) {
            return Long.parseLong(child.getOrDefault(key, "0"));
        }

        /** A number the child reported; NaN when it reported none (plain Paimon has no governed metrics). */
        double number(String key) {
            String v = child.get(key);
            return v == null ? Double.NaN : Double.parseDouble(v);
        }

        long[] writtenByTick() {
            String v = child.getOrDefault("writtenByTick", "");
            return v.isEmpty() ? new long[0] : Arrays.stream(v.split(",")).mapToLong(Long::parseLong).toArray();
        }

        List<Long> prepareMillis() {
            String v = child.getOrDefault("prepareMillis", "");
            return v.isEmpty() ? List.of() : Arrays.stream(v.split(",")).map(Long::valueOf).toList();
        }

        /** Rows per second the writer wrote over {@code [fromMillis, toMillis)} of the run (within a tick). */
        double writtenRowsPerSec(long fromMillis, long toMillis) {
            long[] byTick = writtenByTick();
            int from = (int) Math.min(byTick.length - 1, fromMillis / LagChild.TICK_MILLIS);
            int to = (int) Math.min(byTick.length - 1, toMillis / LagChild.TICK_MILLIS);
            return to <= from ? 0 : (byTick[to] - byTick[from]) * 1000.0 / ((to - from) * LagChild.TICK_MILLIS);
        }

        /**
         * Rows per second that became visible to a batch reader over {@code [fromMillis, toMillis]}: at
         * each probe, the rows written up to the newest visible {@code ts} (within a tick), from the
         * last probe at or before each end. Meant for a run without a schedule, where a row's {@code
         * ts} is the time it was written. 0 without probes.
         */
        double visibleRowsPerSec(long fromMillis, long toMillis) {
            LagSeries.Sample from = lastAtOrBefore(fromMillis);
            LagSeries.Sample to = lastAtOrBefore(toMillis);
            if (from == null || to == null || to.millis() <= from.millis()) {
                return 0;
            }
            return (writtenBefore(to) - writtenBefore(from)) * 1000.0 / (to.millis() - from.millis());
        }

        /**
         * Rows per second compaction moved out of level 0 over {@code (fromMillis, toMillis]}: the
         * level-0 files' rows a compaction committed in that span replaced, counted from the commit
         * messages (Paimon's own record of what each compaction read), in rows written (level-0 rows
         * times rows written over rows flushed up to the last commit; a flush merges a key's changes
         * within a checkpoint). In a deletion-vector table a row is visible to a batch reader once
         * it left level 0. 0 without commits in the span.
         */
        double drainedRowsPerSec(long fromMillis, long toMillis) {
            long drained = 0;
            long flushed = 0;
            long written = 0;
            for (Commit c : commits) {
                if (c.millis() > fromMillis && c.millis() <= toMillis) {
                    drained += c.level0RowsCompacted();
                }
                flushed += c.level0RowsFlushed();
                written = c.rowsWritten();
            }
            if (toMillis <= fromMillis || flushed == 0) {
                return 0;
            }
            return drained * ((double) written / flushed) * 1000.0 / (toMillis - fromMillis);
        }

        /** When a probe first saw a row; -1 when none did. */
        long firstVisibleMillis() {
            return series.samples().stream().filter(s -> s.lagMillis() < s.millis()).mapToLong(LagSeries.Sample::millis).findFirst()
                    .orElse(-1);
        }

        private LagSeries.Sample lastAtOrBefore(long millis) {
            LagSeries.Sample last = null;
            for (LagSeries.Sample s : series.samples()) {
                if (s.millis() <= millis) {
                    last = s;
                }
            }
            return last;
        }

        /** Rows written before the newest visible ts of {@code s} (its time minus its lag). */
        private long writtenBefore(LagSeries.Sample s) {
            long[] byTick = writtenByTick();
            long tick = (s.millis() - s.lagMillis()) / LagChild.TICK_MILLIS;
            return byTick.length == 0 ? 0 : byTick[(int) Math.max(0, Math.min(byTick.length - 1, tick))];
        }
    }

    /**
     * A committed checkpoint.
     *
     * @param millis when its commit ended, from the run's start
     * @param rowsWritten rows the writer had written when it prepared the checkpoint
     * @param level0RowsFlushed rows of the level-0 files it added (the writer's flushes)
     * @param level0RowsCompacted rows of the level-0 files its compactions replaced
     */
    record Commit(long millis, long rowsWritten, long level0RowsFlushed, long level0RowsCompacted) {

        /** The commit of checkpoint {@code c}, ended at {@code millis}. */
        static Commit of(long millis, Frames.Checkpoint c) {
            long flushed = 0;
            long compacted = 0;
            for (org.apache.paimon.table.sink.CommitMessage m : c.messages()) {
                org.apache.paimon.table.sink.CommitMessageImpl impl = (org.apache.paimon.table.sink.CommitMessageImpl) m;
                flushed += level0Rows(impl.newFilesIncrement().newFiles());
                compacted += level0Rows(impl.compactIncrement().compactBefore());
            }
            return new Commit(millis, c.rowsWritten(), flushed, compacted);
        }

        private static long level0Rows(List<org.apache.paimon.io.DataFileMeta> files) {
            return files.stream().filter(f -> f.level() == 0).mapToLong(org.apache.paimon.io.DataFileMeta::rowCount).sum();
        }
    }

    private LagRun() {}

    /**
     * Runs {@code s} on a copy of the prepared warehouse {@code prepared} under {@code dir} (the
     * caller deletes it). Rows of the table older than the run count as not yet seen: until the first
     * of the run's rows is visible the lag is the time since the run started. A child that fails
     * (exits otherwise than after its last frame, runs out of memory, outlasts its time) gives a
     * result with its reason and what was measured until then.
     *
     * @throws InterruptedException when this thread is interrupted (the child is killed first)
     */
    static Result run(Path dir, Path prepared, Settings s) throws Exception {
        Path warehouse = dir.resolve("warehouse");
        BenchTables.copyTree(prepared, warehouse);
        Files.createDirectories(dir.resolve("spill"));
        FileStoreTable table = LagTable.table(warehouse);
        Path result = dir.resolve("result.txt");
        Path log = dir.resolve("child.log");
        Process child = ChildProcess.start(s.childArgs(warehouse, dir.resolve("spill"), result), s.budgetBytes(), log);
        Committer committer = new Committer(table, "bench-lag-" + s.line(), new DataInputStream(new BufferedInputStream(child.getInputStream())));
        Thread committing = new Thread(committer, "bench-lag-committer");
        committing.setDaemon(true);
        committing.start();
        Prober prober = null;
        Thread probing = null;
        List<Steadiness.Verdict> verdicts = new ArrayList<>();
        List<Long> marks = new ArrayList<>();
        String failure;
        try {
            if (committer.started.await(CHILD_SLACK_SECONDS, TimeUnit.SECONDS) && committer.start > 0) {
                prober = new Prober(new LagProbe(table), s, committer.start);
                probing = new Thread(prober, "bench-lag-probe");
                probing.setDaemon(true);
                probing.start();
                if (s.staircase() != null) {
                    climb(s, committer, prober, child, verdicts, marks);
                } else {
                    anchor(s, committer, child, marks);
                }
            }
            if (committer.failure.get() != null) {
                // It no longer reads the frames: the child would block on a full pipe.
                child.destroyForcibly();
            }
            boolean ended = child.waitFor(s.maxMillis() / 1000 + CHILD_SLACK_SECONDS, TimeUnit.SECONDS);
            if (!ended) {
                child.destroyForcibly().waitFor();
            }
            committing.join();
            failure = ChildProcess.failure(child, ended, committer.ended, log, committer.failure.get(), CHILD_SLACK_SECONDS);
        } catch (InterruptedException e) {
            child.destroyForcibly().waitFor();
            throw e;
        } finally {
            child.destroyForcibly();
            if (prober != null) {
                prober.stop();
                probing.join();
            }
        }
        if (failure == null && prober != null && prober.failure != null) {
            failure = "the probe failed: " + prober.failure;
        }
        Map<String, String> reported = failure == null ? LagChild.readResult(result) : Map.of();
        LagSeries series = prober == null ? new LagSeries(List.of()) : prober.series();
        if (reported.containsKey("ranMillis")) {
            // After the writer stopped nothing new arrives: the probes while the child closed its write are not the run's.
            series = series.until(Long.parseLong(reported.get("ranMillis")));
        }
        return new Result(s, failure, series, List.copyOf(verdicts), List.copyOf(marks), committer.commits(), reported,
                prober == null ? 0 : prober.mismatches, prober == null ? 0 : prober.crossChecks);
    }

    /**
     * Judges each stair as it ends (once two probes after its end came in) and moves the child to
     * the next, or stops it at the first that was not steady and after the last. The first stair is
     * judged over the last half stair at every half stair from {@link Staircase#firstJudgedAtMillis}
     * on, until its lag is flat ({@link Steadiness.Verdict#flat}: a start-up's lag still falling, or
     * one commit that made a backlog visible, is judged again) or past {@link
     * Staircase#firstStairMaxMillis}, when the last judgement stands; every later one over its second
     * half. Returns early when the child ended or the committer failed; {@code starts} gets each
     * stair's start, ms from the run's start.
     */
    private static void climb(Settings s, Committer committer, Prober prober, Process child, List<Steadiness.Verdict> verdicts,
            List<Long> starts) throws InterruptedException {
        Staircase stairs = s.staircase();
        starts.add(0L);
        long half = stairs.halfMillis();
        Steadiness.Verdict first = null;
        for (long end = stairs.firstJudgedAtMillis(); end <= stairs.firstStairMaxMillis(); end += half) {
            if (!waitUntil(committer.start + end + 2 * s.probeMillis(), committer, child)) {
                return;
            }
            first = Steadiness.judge(prober.series(), end - half, end, s.checkpointMillis());
            if (first.flat()) {
                break;
            }
        }
        verdicts.add(first);
        for (int i = 1; first.steady() && i < stairs.stairs(); i++) {
            long start = System.currentTimeMillis() - committer.start;
            tell(child, LagChild.NEXT);
            starts.add(start);
            long end = start + stairs.stairMillis();
            if (!waitUntil(committer.start + end + 2 * s.probeMillis(), committer, child)) {
                return;
            }
            Steadiness.Verdict v = Steadiness.judge(prober.series(), end - half, end, s.checkpointMillis());
            verdicts.add(v);
            if (!v.steady()) {
                break;
            }
        }
        tell(child, LagChild.STOP);
    }

    /**
     * The anchor's run: waits for its first committed compaction (at most until {@code maxMillis}
     * less the anchor's span), then for the anchor's span and, past it, until another compaction
     * committed inside the span so far (at most until {@code maxMillis} less a checkpoint), and stops
     * the child; {@code marks} gets the span's start and end, ms from the run's start. A span with
     * no compaction of its own would leave only the visible or the written rate (an unlimited writer
     * floods level 0, so one thread's next compaction can take longer than the span: on 2026-12-06
     * that anchor read the written 41,011 rows/s, and one thread sustained no stair from it).
     */
    private static void anchor(Settings s, Committer committer, Process child, List<Long> marks) throws InterruptedException {
        long latest = committer.start + s.maxMillis() - s.anchorMillis();
        while (System.currentTimeMillis() < latest && child.isAlive() && committer.failure.get() == null
                && committer.commits().stream().noneMatch(c -> c.level0RowsCompacted() > 0)) {
            Thread.sleep(20);
        }
        long from = System.currentTimeMillis() - committer.start;
        if (!waitUntil(committer.start + from + s.anchorMillis(), committer, child)) {
            return;
        }
        long last = committer.start + s.maxMillis() - s.checkpointMillis();
        while (System.currentTimeMillis() < last && child.isAlive() && committer.failure.get() == null
                && committer.commits().stream().noneMatch(c -> c.level0RowsCompacted() > 0 && c.millis() > from)) {
            Thread.sleep(20);
        }
        if (child.isAlive() && committer.failure.get() == null) {
            marks.add(from);
            marks.add(System.currentTimeMillis() - committer.start);
            tell(child, LagChild.STOP);
        }
    }

    /** Sleeps until {@code epochMillis}; false when the child ended or the committer failed meanwhile. */
    private static boolean waitUntil(long epochMillis, Committer committer, Process child) throws InterruptedException {
        while (System.currentTimeMillis() < epochMillis && child.isAlive() && committer.failure.get() == null) {
            Thread.sleep(Math.max(1, Math.min(100, epochMillis - System.currentTimeMillis())));
        }
        return child.isAlive() && committer.failure.get() == null;
    }

    /** Writes a command line to the child; nothing when it has ended meanwhile. */
    private static void tell(Process child, String command) {
        try {
            OutputStream in = child.getOutputStream();
            in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            // the child has ended meanwhile: nothing to tell
        }
    }
}
