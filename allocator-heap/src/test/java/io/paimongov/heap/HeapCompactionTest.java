package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Parallel per-bucket compaction on real tables: concurrency within the setting, buckets serial. */
class HeapCompactionTest {

    private static final int BUCKETS = 8;
    private static final int BACKLOG_COMMITS = 6;

    @TempDir Path dir;

    /** A table whose 8 buckets each hold a level-0 backlog of 6 files, and the rows it holds. */
    private FileStoreTable backlog(Map<List2, String> model, int rowsPerCommit) throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", BUCKETS, "parquet");
        FileStoreTable writeOnly = table.copy(Map.of("write-only", "true"));
        java.util.Random random = new java.util.Random(7);
        for (int c = 0; c < BACKLOG_COMMITS; c++) {
            BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
                for (int i = 0; i < rowsPerCommit; i++) {
                    int k = random.nextInt(rowsPerCommit * 2);
                    String v = "c" + c + "-" + i;
                    write.write(GenericRow.of(0, k, BinaryString.fromString(v)));
                    model.put(new List2(0, k), v);
                }
                commit.commit(write.prepareCommit());
            }
        }
        return table;
    }

    private record List2(int p, int k) {}

    private static Map<java.util.List<Integer>, String> asTable(Map<List2, String> model) {
        Map<java.util.List<Integer>, String> out = new java.util.TreeMap<>((a, b) -> {
            int c = Integer.compare(a.get(0), b.get(0));
            return c != 0 ? c : Integer.compare(a.get(1), b.get(1));
        });
        model.forEach((key, v) -> out.put(java.util.List.of(key.p(), key.k()), v));
        return out;
    }

    /** Touches every bucket so its writer (with its backlog) exists, then prepares and commits. */
    private MetricsSnapshot drain(FileStoreTable table, WriteHarness h, String threads, String budget, Map<List2, String> model)
            throws Exception {
        try (GovernedTableWrite write =
                h.batch(table, h.options(budget, "governance.compaction.task-threads", threads))) {
            for (int k = 0; write.metrics().inputRows() < 400; k++) {
                InternalRow row = GenericRow.of(0, k, BinaryString.fromString("drain-" + k));
                write.write(row);
                model.put(new List2(0, k), "drain-" + k);
            }
            write.prepareCommit().commit();
        }
        return h.context.snapshot();
    }

    /**
     * A backlog of {@code rowsPerCommit}-row commits drained with {@code threads} compaction threads
     * under {@code budget}; checks what holds for every setting (every bucket compacted, never two
     * compactions on one bucket at once, the table equal to its model) and gives the write's metrics.
     */
    private MetricsSnapshot drainedBacklog(int rowsPerCommit, String threads, String budget) throws Exception {
        Map<List2, String> model = new HashMap<>();
        FileStoreTable table = backlog(model, rowsPerCommit);
        MetricsSnapshot m = drain(table, new WriteHarness(dir), threads, budget, model);
        assertThat(m.compactionCount()).isGreaterThanOrEqualTo(BUCKETS);
        assertThat(m.compactionBucketOverlaps()).isZero();
        assertThat(TestTables.read(table)).isEqualTo(asTable(model));
        return m;
    }

    @Test
    void twoThreadsRunTwoCompactionsAtOnceAndNeverTwoOnOneBucket() throws Exception {
        MetricsSnapshot m = drainedBacklog(4_000, "2", "64m");
        assertThat(m.compactionThreads()).isEqualTo(2);
        assertThat(m.compactionPeakRunning()).isEqualTo(2);
        assertThat(m.compactionInputBytes()).isPositive();
        assertThat(m.compactionOutputBytes()).isPositive();
        assertThat(m.compactionBusyRatio()).isBetween(0.0, 1.0);
        assertThat(m.reservedBytes()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "3", "-1"})
    void concurrencyNeverPassesTheSetting(String threads) throws Exception {
        MetricsSnapshot m = drainedBacklog(2_000, threads, "64m");
        int bound = threads.equals("-1") ? BUCKETS : Integer.parseInt(threads);
        assertThat(m.compactionThreads()).isEqualTo(threads.equals("-1") ? 8 : bound);
        assertThat(m.compactionPeakRunning()).isBetween(1L, (long) bound);
    }

    @Test
    void moreThreadsUnderATightBudgetNeverBreakTheBudget() throws Exception {
        MetricsSnapshot m = drainedBacklog(2_000, "4", "3m");
        assertThat(m.peakReservedBytes()).isLessThanOrEqualTo(3 << 20);
    }

    @Test
    void theTablesOwnSettingIsHonouredAndABadOneIsNamed() throws Exception {
        Map<List2, String> model = new HashMap<>();
        FileStoreTable table = backlog(model, 1_000);
        WriteHarness h = new WriteHarness(dir);
        try (GovernedTableWrite write = h.batch(table.copy(Map.of("compaction.task-threads", "3")), h.options("16m"))) {
            assertThat(write.metrics().compactionThreads()).isEqualTo(3);
        }
        WriteHarness bad = new WriteHarness(dir.resolve("bad"));
        assertThatThrownBy(() -> bad.batch(table.copy(Map.of("compaction.task-threads", "0")), bad.options("16m")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'compaction.task-threads' = '0' must be 1");
        assertThat(bad.context.isClosed()).isTrue();
    }
}
