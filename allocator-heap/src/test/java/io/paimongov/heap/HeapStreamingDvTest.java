package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Streaming writes into deletion-vector and lookup-changelog primary-key tables, as an engine's
 * checkpoints drive them: rounds of write, {@code prepareCommit(wait, id)}, commit, with
 * {@code compaction.task-threads} 1, 2 and -1 under a 3 MiB budget, and a forced full compaction
 * ({@link GovernedTableWrite#compact}) half way. Every expectation comes from the input alone
 * ({@link KeyHistory}):
 *
 * <ol>
 *   <li>after a checkpoint that waited for compaction, the table is the fold of the input so far;
 *   <li>after one that did not, every key shows a state it really had, not older than at the last
 *       waiting checkpoint (a deletion-vector reader skips level 0, so it may lag, never go back);
 *   <li>the changelog a stream scan reads from the first snapshot folds to the input, and every
 *       change moves its key forward through its real states.
 * </ol>
 *
 * Besides: never two compactions on one bucket, the accounted peak within the budget, at least two
 * compactions at once with 2 and -1 threads (the tracker's count), the lookup rewriter's tasks
 * charged for their input ({@code CompactionTaskMemory}, below the planned most) and the lookup
 * cache's charge within {@code lookup.cache-max-memory-size}.
 */
class HeapStreamingDvTest {

    private static final int BUCKETS = 4;
    private static final int ROUNDS = 16;
    private static final int ROWS_PER_ROUND = 120;
    private static final int KEYS = 300;
    private static final int FULL_COMPACTION_ROUND = 8;
    private static final long LOOKUP_CACHE_BYTES = 256 << 10;

    @TempDir Path dir;

    /** What the compaction threads saw while their tasks ran (recorded by the FileIO hook). */
    private static final class Observed {
        final AtomicInteger lookupTasks = new AtomicInteger();
        final AtomicLong largestTaskCharge = new AtomicLong();
        final AtomicLong largestLookupCacheCharge = new AtomicLong();
    }

    @ParameterizedTest(name = "{0}, task-threads {1}")
    @CsvSource({"deletion-vectors, 1", "deletion-vectors, 2", "deletion-vectors, -1", "lookup, 1", "lookup, 2", "lookup, -1"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void checkpointRoundsKeepTheModels(String mode, String threads) throws Exception {
        boolean dv = mode.equals("deletion-vectors");
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options(dv), true);
        SlowCompactions hooks = new SlowCompactions();
        Observed seen = new Observed();
        ResourceContext context = hooks.open(dir.resolve("spill"), "3m", "governance.compaction.task-threads", threads);
        hooks.hook(observe(context, seen, !threads.equals("1")));
        KeyHistory model = new KeyHistory();
        Random random = new Random(mode.hashCode() * 31L + threads.hashCode());
        long compactionBytes;
        try (GovernedTableWrite write = GovernedTableWrite.stream(hooks.table(table), "streaming-test", context)) {
            compactionBytes = write.footprint().compactionBytes();
            for (int round = 0; round < ROUNDS; round++) {
                writeRound(write, model, random, round);
                boolean full = round == FULL_COMPACTION_ROUND;
                if (full) {
                    compactEveryActiveBucketFully(write);
                }
                boolean wait = full || round % 4 == 3 || round == ROUNDS - 1;
                write.prepareCommit(wait, round).commit();
                Map<List<Integer>, String> visible = TestTables.read(table);
                if (wait || !dv) {
                    // Model (i); a table without deletion vectors reads level 0 too, so always.
                    assertThat(visible).as("round " + round + " (waited: " + wait + ")").isEqualTo(model.fold());
                    model.waitedCheckpoint();
                } else {
                    model.assertVisibleIsRealAndNotOlderThanTheLastWait(visible, "round " + round + " (writers closed early so far: "
                            + write.metrics().writersClosedEarly() + ")");
                }
                if (full) {
                    assertEveryBucketIsOneRunAtTheTop(table);
                }
            }
            MetricsSnapshot m = write.metrics();
            assertThat(m.compactionBucketOverlaps()).isZero();
            assertThat(m.peakReservedBytes()).isLessThanOrEqualTo(3 << 20);
            assertThat(m.compactionCount()).isPositive();
            if (!threads.equals("1")) {
                assertThat(m.compactionPeakRunning()).as("compactions at once").isGreaterThanOrEqualTo(2);
            }
        }
        // Model (iii).
        assertThat(model.foldChangelog(changelog(table), !dv)).as("the changelog folded").isEqualTo(model.fold());
        assertThat(context.snapshot().reservedBytes()).isZero();
        assertThat(seen.lookupTasks.get()).as("compaction tasks that ran Paimon's lookup rewriter").isPositive();
        assertThat(seen.largestTaskCharge.get()).as("a lookup compaction task's charge: its input, below the planned most")
                .isPositive().isLessThan(compactionBytes);
        assertThat(seen.largestLookupCacheCharge.get()).as("the lookup cache's charge").isPositive()
                .isLessThanOrEqualTo(LOOKUP_CACHE_BYTES);
    }

    private static Map<String, String> options(boolean dv) {
        Map<String, String> o = new HashMap<>();
        o.put("bucket", Integer.toString(BUCKETS));
        o.put("file.format", "parquet");
        o.put("lookup.cache-max-memory-size", LOOKUP_CACHE_BYTES + " b");
        o.put(dv ? "deletion-vectors.enabled" : "changelog-producer", dv ? "true" : "lookup");
        // Checkpoints wait only when the test says so (with lookup-wait on every one would: LookupWaitTest).
        o.put("lookup-wait", "false");
        return o;
    }

    /**
     * On each data file a compaction thread opens: notes the charges while its task runs, and, for
     * more than one thread, holds the first task until a second one arrives (at most 10 s), so two
     * tasks certainly run at once once two have work.
     */
    private static SlowCompactions.Hook observe(ResourceContext context, Observed seen, boolean meet) {
        CountDownLatch twoTasks = new CountDownLatch(meet ? 2 : 0);
        AtomicInteger arrived = new AtomicInteger();
        return output -> {
            // The rewriter's own frames are its superclass's; its merge-function factory is its own.
            boolean lookupRewriter = StackWalker.getInstance().walk(frames -> frames.anyMatch(
                    f -> f.getClassName().startsWith("org.apache.paimon.mergetree.compact.LookupMergeTreeCompactRewriter")))
                    && StackWalker.getInstance().walk(frames -> frames.anyMatch(
                    f -> f.getClassName().equals("org.apache.paimon.mergetree.compact.MergeTreeCompactTask")));
            if (lookupRewriter) {
                seen.lookupTasks.incrementAndGet();
            }
            for (ResourceExhaustedException.Holder h : context.holders()) {
                if (h.name().equals("compaction task")) {
                    seen.largestTaskCharge.accumulateAndGet(h.bytes(), Math::max);
                } else if (h.name().equals("lookup cache")) {
                    seen.largestLookupCacheCharge.accumulateAndGet(h.bytes(), Math::max);
                }
            }
            if (arrived.incrementAndGet() <= 2) {
                twoTasks.countDown();
                twoTasks.await(10, TimeUnit.SECONDS);
            }
        };
    }

    /** One round of rows on partition 0: updates of random keys, about one in ten a delete of a present key. */
    private static void writeRound(GovernedTableWrite write, KeyHistory model, Random random, int round) throws Exception {
        Map<List<Integer>, String> now = model.fold();
        for (int i = 0; i < ROWS_PER_ROUND; i++) {
            int k = random.nextInt(KEYS);
            InternalRow row = random.nextInt(10) == 0 && now.containsKey(List.of(0, k))
                    ? GenericRow.ofKind(org.apache.paimon.types.RowKind.DELETE, 0, k, null)
                    : GenericRow.of(0, k, BinaryString.fromString("r" + round + "-" + i));
            write.write(row);
            model.apply(row);
            TestTables.apply(now, row);
        }
    }

    /** A forced full compaction of every bucket the write holds, and none of a partition it never wrote. */
    private static void compactEveryActiveBucketFully(GovernedTableWrite write) throws Exception {
        Map<BinaryRow, List<Integer>> active = write.activeBuckets();
        assertThat(active.values().stream().mapToInt(List::size).sum()).as("active buckets").isEqualTo(BUCKETS);
        for (Map.Entry<BinaryRow, List<Integer>> e : active.entrySet()) {
            for (int bucket : e.getValue()) {
                assertThat(write.compact(e.getKey(), bucket, true)).isTrue();
            }
        }
        BinaryRow otherPartition = BinaryRow.singleColumn(1);
        assertThat(write.compact(otherPartition, 0, true)).as("a bucket the write holds no writer for").isFalse();
    }

    /** Paimon's own file metadata: after a full compaction each bucket is one run at the highest level. */
    private static void assertEveryBucketIsOneRunAtTheTop(FileStoreTable table) {
        int top = table.coreOptions().numLevels() - 1;
        int buckets = 0;
        for (DataSplit split : table.newSnapshotReader().read().dataSplits()) {
            buckets++;
            for (DataFileMeta f : split.dataFiles()) {
                assertThat(f.level()).as("level of " + f.fileName() + " in bucket " + split.bucket()).isEqualTo(top);
            }
        }
        assertThat(buckets).isEqualTo(BUCKETS);
    }

    /** Every change a stream scan reads from snapshot 1 to the latest, in order. */
    private static List<InternalRow> changelog(FileStoreTable table) throws Exception {
        long latest = table.snapshotManager().latestSnapshotId();
        ReadBuilder builder = table.copy(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1")).newReadBuilder();
        StreamTableScan scan = builder.newStreamScan();
        List<InternalRow> rows = new ArrayList<>();
        org.apache.paimon.data.serializer.InternalRowSerializer copier =
                new org.apache.paimon.data.serializer.InternalRowSerializer(table.rowType());
        while (scan.checkpoint() == null || scan.checkpoint() <= latest) {
            List<Split> splits = scan.plan().splits();
            if (splits.isEmpty()) {
                continue;
            }
            try (RecordReader<InternalRow> reader = builder.newRead().createReader(splits)) {
                reader.forEachRemaining(row -> rows.add(copier.copy(row)));
            }
        }
        return rows;
    }
}
