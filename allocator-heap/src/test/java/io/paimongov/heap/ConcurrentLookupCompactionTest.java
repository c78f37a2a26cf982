package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion-vector compactions of several buckets at once look their keys up with lookup caches far
 * smaller than the lookup files, so pages come and go all the time. Paimon shares one page cache and
 * one lookup-file cache by all buckets of a write and tells a reader of a dropped page on the thread
 * that dropped it; with one cache per write this failed a compaction with a {@code
 * NullPointerException} in a bloom filter (a page taken away by another bucket's thread) or a
 * {@code ConcurrentModificationException}. Expected: the table is the last value of each key
 * written (the model), the compactions overlapped (the tracker's count), and nothing stays charged.
 */
class ConcurrentLookupCompactionTest {

    private static final int BUCKETS = 4;
    private static final int KEYS = 30_000;
    private static final int ROUNDS = 6;

    @TempDir Path dir;

    @ParameterizedTest(name = "lookup.cache-max-memory-size {0}")
    @ValueSource(strings = {"64 kb", "1 mb"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void concurrentLookupCompactionsWithASmallCacheKeepEveryKey(String cacheSize) throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", Integer.toString(BUCKETS),
                "file.format", "parquet", "deletion-vectors.enabled", "true", "lookup-wait", "false",
                "lookup.cache-max-memory-size", cacheSize), true);
        SlowCompactions hooks = new SlowCompactions();
        hooks.hook(twoTasksMeet());
        ResourceContext context = hooks.open(dir.resolve("spill"), "64m", "governance.compaction.task-threads", Integer.toString(BUCKETS));
        Map<List<Integer>, String> model = new HashMap<>();
        Random random = new Random(7);
        MetricsSnapshot m;
        try (GovernedTableWrite write = GovernedTableWrite.stream(hooks.table(table), "concurrent-lookup-test", context)) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < KEYS; i++) {
                    int k = random.nextInt(KEYS);
                    String v = "round-" + round + "-" + i + "-" + "x".repeat(random.nextInt(60));
                    write.write(GenericRow.of(0, k, BinaryString.fromString(v)));
                    model.put(List.of(0, k), v);
                }
                write.prepareCommit(round == ROUNDS - 1, round).commit();
            }
            m = write.metrics();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(m.compactionPeakRunning()).as("compactions at once").isGreaterThanOrEqualTo(2);
        assertThat(m.compactionBucketOverlaps()).isZero();
        assertThat(context.snapshot().reservedBytes()).isZero();
    }

    /**
     * A table whose compaction managers Paimon makes with another factory ({@code
     * pk-clustering-override}) keeps Paimon's one shared lookup cache, so its write compacts on one
     * thread whatever the setting: never two compactions at once, and the table as written.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aTableWhoseLookupCacheCannotBeSplitCompactsOnOneThread() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", Integer.toString(BUCKETS),
                "file.format", "parquet", "deletion-vectors.enabled", "true", "pk-clustering-override", "true",
                "clustering.columns", "v"), true);
        ResourceContext context = new SlowCompactions().open(dir.resolve("spill"), "64m", "governance.compaction.task-threads",
                Integer.toString(BUCKETS));
        Map<List<Integer>, String> model = new HashMap<>();
        Random random = new Random(11);
        MetricsSnapshot m;
        try (GovernedTableWrite write = GovernedTableWrite.stream(table, "clustered-lookup-test", context)) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 2_000; i++) {
                    int k = random.nextInt(2_000);
                    String v = "round-" + round + "-" + i;
                    write.write(GenericRow.of(0, k, BinaryString.fromString(v)));
                    model.put(List.of(0, k), v);
                }
                write.prepareCommit(true, round).commit();
            }
            m = write.metrics();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(m.compactionCount()).as("compactions").isPositive();
        assertThat(m.compactionPeakRunning()).as("compactions at once").isEqualTo(1);
        assertThat(context.snapshot().reservedBytes()).isZero();
    }

    /** Holds the first compaction task's first data file until a second task opens one (at most 10 s). */
    private static SlowCompactions.Hook twoTasksMeet() {
        CountDownLatch two = new CountDownLatch(2);
        AtomicInteger arrived = new AtomicInteger();
        return output -> {
            if (arrived.incrementAndGet() <= 2) {
                two.countDown();
                two.await(10, TimeUnit.SECONDS);
            }
        };
    }
}
