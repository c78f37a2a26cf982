package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checkpoint bound of docs/compaction.md ("How long a checkpoint waits for compaction"): a
 * stream write's {@code prepareCommit(false, id)} waits only for the buckets Paimon forces (more
 * sorted runs than {@code num-sorted-run.stop-trigger}), and those buckets' compactions run on all
 * threads at once, so with {@code H} forced buckets and {@code T} threads it waits
 * {@code ceil(H / T)} task times, not {@code H}; a prepareCommit that finds no bucket forced waits
 * for no compaction at all. Measured by {@code prepareCommitCompactionWaitMillis}.
 *
 * <p>The table has {@code lookup-wait=false}: with it on, every prepareCommit waits (LookupWaitTest).
 *
 * <p>Deterministic set-up: every compaction task sleeps {@link #TASK_MILLIS} before it writes its
 * output file ({@link SlowCompactions}); four buckets each get a backlog of six level-0 files from
 * plain Paimon commits, past the stop trigger of 3, so the first prepareCommit must compact all four
 * and wait. Expected values come from that set-up alone: the lower bound is the sleeps the
 * threads must serve one after another; the upper side is the tracker's count of compactions at
 * once (all forced buckets on all threads), which needs no clock.
 */
class CheckpointWaitBoundTest {

    private static final int BUCKETS = 4;
    private static final int BACKLOG = 6;
    private static final int KEYS = 200;
    private static final long TASK_MILLIS = 800;

    @TempDir Path dir;

    @ParameterizedTest(name = "task-threads {0}")
    @ValueSource(strings = {"1", "2", "-1"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void forcedBucketsCompactOnAllThreadsAndAnUnforcedCheckpointWaitsForNone(String threads) throws Exception {
        FileStoreTable table = backlog();
        SlowCompactions slow = new SlowCompactions();
        ResourceContext context = slow.open(dir.resolve("spill"), "64m", "governance.compaction.task-threads", threads);
        int threadCount = threads.equals("-1") ? BUCKETS : Integer.parseInt(threads);
        long rounds = (BUCKETS + threadCount - 1) / threadCount;
        try (GovernedTableWrite write = GovernedTableWrite.stream(slow.table(table), "bound-test", context)) {
            slow.delayOutput(TASK_MILLIS);

            long forced = checkpoint(write, 1);
            assertThat(forced).as("four forced buckets on " + threads + " thread(s): at least " + rounds + " task times")
                    .isGreaterThanOrEqualTo(rounds * TASK_MILLIS);
            // The upper side of the bound, free of timing: the forced compactions ran side by side,
            // so the wait was ceil(4 / T) task times, not 4 (no clock bound: the machine may be loaded).
            assertThat(write.metrics().compactionPeakRunning()).as("forced compactions at once")
                    .isEqualTo(Math.min(BUCKETS, threadCount));

            // Every bucket is down to at most two sorted runs now: no bucket is forced, and the
            // compactions this checkpoint triggers (sleeping too) run in the background.
            long unforced = checkpoint(write, 2);
            assertThat(unforced).as("a checkpoint with no forced bucket").isZero();

            MetricsSnapshot m = write.metrics();
            assertThat(m.prepareCommitCompactionWaitMillis()).isLessThanOrEqualTo(m.prepareCommitMillis());
            assertThat(m.compactionBucketOverlaps()).isZero();
        }
        assertThat(context.snapshot().reservedBytes()).isZero();
    }

    /**
     * Writes every key once and prepares and commits checkpoint {@code id} without waiting; returns
     * the compaction wait that prepareCommit reported, checked against the test's own clock around it.
     */
    private static long checkpoint(GovernedTableWrite write, long id) throws Exception {
        for (int k = 0; k < KEYS; k++) {
            write.write(GenericRow.of(0, k, BinaryString.fromString("c" + id + "-" + k)));
        }
        long before = write.metrics().prepareCommitCompactionWaitMillis();
        long start = System.nanoTime();
        var prepared = write.prepareCommit(false, id);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        prepared.commit();
        long waited = write.metrics().prepareCommitCompactionWaitMillis() - before;
        assertThat(waited).as("the wait is part of the prepareCommit").isLessThanOrEqualTo(elapsed);
        return waited;
    }

    /** A deletion-vector table of four buckets, each holding six level-0 files (Paimon's own write-only commits). */
    private FileStoreTable backlog() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of(
                "bucket", Integer.toString(BUCKETS),
                "file.format", "parquet",
                "deletion-vectors.enabled", "true",
                "lookup-wait", "false",
                "num-sorted-run.compaction-trigger", "2",
                "num-sorted-run.stop-trigger", "3"), true);
        FileStoreTable writeOnly = table.copy(Map.of("write-only", "true"));
        for (int c = 0; c < BACKLOG; c++) {
            BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
            try (BatchTableWrite w = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
                for (int k = 0; k < KEYS; k++) {
                    w.write(GenericRow.of(0, k, BinaryString.fromString("b" + c + "-" + k)));
                }
                commit.commit(w.prepareCommit());
            }
        }
        return table;
    }
}
