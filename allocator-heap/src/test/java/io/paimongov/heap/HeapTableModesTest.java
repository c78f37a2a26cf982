package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.MeasuredFootprints;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every table mode through the governed write, each compared with an independent model of its
 * input: primary keys (last write wins per key, deletes remove) with fixed and dynamic buckets,
 * deletion vectors and the lookup changelog producer; append tables (every row kept) without and
 * with buckets of any count; the postpone bucket (every row kept in the postpone bucket).
 * Cross-partition updates: {@link HeapCrossPartitionTest}.
 */
class HeapTableModesTest {

    @TempDir Path dir;

    private static Map<String, String> options(String... kv) {
        Map<String, String> o = new HashMap<>();
        o.put("file.format", "parquet");
        for (int i = 0; i < kv.length; i += 2) {
            o.put(kv[i], kv[i + 1]);
        }
        return o;
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed", "dynamic", "deletion-vectors", "lookup", "dynamic+deletion-vectors"})
    void primaryKeyModesCommitTheModelUnderASmallAndAnAmpleBudget(String mode) throws Exception {
        Map<String, String> o = switch (mode) {
            case "fixed" -> options("bucket", "4");
            case "dynamic" -> options("bucket", "-1");
            case "deletion-vectors" -> options("bucket", "4", "deletion-vectors.enabled", "true");
            case "lookup" -> options("bucket", "4", "changelog-producer", "lookup");
            default -> options("bucket", "-1", "deletion-vectors.enabled", "true");
        };
        Workload w = Workload.random(mode.hashCode(), WriteHarness.ROWS / 2, WriteHarness.ROWS / 8, 3, 32);
        for (String budget : List.of("3m", "64m")) {
            WriteHarness h = new WriteHarness(dir.resolve(budget));
            FileStoreTable table = TestTables.createTable(h.root.resolve("wh"), "t", o, true);
            h.writeAndCommit(table, h.options(budget, "governance.memory.page-size", "16k"), w.rows());
            MetricsSnapshot m = h.context.snapshot();
            assertThat(TestTables.read(table)).as(mode + " under " + budget).isEqualTo(w.expected());
            h.assertPeakWithin(budget, m);
            assertThat(m.reservedBytes()).isZero();
            assertThat(h.provider.lastOpened().usedAtClose()).isZero();
            assertThat(h.spillScopes()).isEmpty();
        }
    }

    @Test
    void aSecondDynamicBucketWriteFindsTheKeysTheFirstOneIndexed() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options("bucket", "-1"), true);
        Workload first = Workload.random(1, 8_000, 4_000, 2, 16);
        Workload second = Workload.random(2, 8_000, 6_000, 2, 16);
        h.writeAndCommit(table, h.options("8m"), first.rows());
        h.writeAndCommit(TestTables.open(dir.resolve("wh").toUri().toString(), "t"), h.options("8m"), second.rows());

        Map<List<Integer>, String> model = TestTables.emptyModel();
        first.rows().forEach(r -> TestTables.apply(model, r));
        second.rows().forEach(r -> TestTables.apply(model, r));
        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    @Test
    void theHashIndexIsChargedForEveryDistinctKeyAtTheMeasuredCost() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options("bucket", "-1"), true);
        Workload w = Workload.random(3, 20_000, 10_000, 2, 16);
        Set<List<Integer>> distinct = new HashSet<>();
        w.rows().forEach(r -> distinct.add(List.of(r.getInt(0), r.getInt(1))));
        long perKey = MeasuredFootprints.get().bytes("pk", "any", "hash-index", 32 << 10);
        try (GovernedTableWrite write = h.batchWriting(table, h.options("16m", "governance.memory.page-size", "32k"), w.rows())) {
            long charged = h.context.holders().stream()
                    .filter(x -> x.name().equals("hash index (dynamic buckets)"))
                    .mapToLong(ResourceExhaustedException.Holder::bytes).sum();
            assertThat(perKey).isPositive();
            assertThat(charged).isGreaterThanOrEqualTo(distinct.size() * perKey);
            write.prepareCommit().commit();
        }
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    @Test
    void aHashIndexThatOutgrowsTheBudgetFailsTypedAndNamesTheKeys() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options("bucket", "-1"), true);
        List<InternalRow> rows = new ArrayList<>();
        int keys = Integer.getInteger("governance.test.index-keys", 250_000);
        for (int k = 0; k < keys; k++) {
            rows.add(GenericRow.of(0, k, BinaryString.fromString("v")));
        }
        assertThatThrownBy(() -> h.writeAndCommit(table, h.options("4m", "governance.memory.page-size", "16k"), rows))
                .isInstanceOfSatisfying(ResourceExhaustedException.class, e -> {
                    assertThat(e.requester()).startsWith("hash index (dynamic buckets) holding ").contains(" keys at ");
                    assertThat(e.capacityBytes()).isEqualTo(4 << 20);
                });
        h.assertNothingLeft(table);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 1, 8, 31, 32, 64, 128})
    void appendTablesOfAnyBucketCountKeepEveryRow(int buckets) throws Exception {
        appendKeepsEveryRow("parquet", buckets);
    }

    /**
     * Avro append writers write straight into their files (no write buffer): past the writers the
     * budget holds open, writers are closed early or their rows go through the shared sort.
     */
    @ParameterizedTest
    @ValueSource(ints = {-1, 8, 128})
    void unbufferedAvroAppendTablesOfAnyBucketCountKeepEveryRow(int buckets) throws Exception {
        MetricsSnapshot m = appendKeepsEveryRow("avro", buckets);
        if (buckets == 128) {
            // 384 open Avro files at about 96 KB each are more than 32m holds: some writers must
            // have been closed early or sent through the shared sort.
            assertThat(m.writersClosedEarly() + m.sortedRows()).isPositive();
        }
    }

    private MetricsSnapshot appendKeepsEveryRow(String format, int buckets) throws Exception {
        WriteHarness h = new WriteHarness(dir);
        Map<String, String> o = buckets < 0 ? options("bucket", "-1") : options("bucket", Integer.toString(buckets), "bucket-key", "k");
        o.put("file.format", format);
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "log", o, false);
        Random random = new Random(buckets);
        List<InternalRow> rows = new ArrayList<>();
        Map<List<Integer>, String> model = TestTables.emptyModel();
        for (int i = 0; i < 12_000; i++) {
            InternalRow row = GenericRow.of(random.nextInt(3), i, BinaryString.fromString(TestTables.value(random, Integer.toString(i), 24)));
            rows.add(row);
            TestTables.apply(model, row);
        }
        // Every (partition, bucket) writer stays open until prepareCommit, each with its first pages:
        // 3 partitions of 128 buckets are 384 writers, more than 4m holds; 32m holds them.
        String budget = buckets >= 64 ? "32m" : "4m";
        h.writeAndCommit(table, h.options(budget, "governance.memory.page-size", "16k"), rows);
        assertThat(readAll(table)).as("every row once").isEqualTo(rows.size());
        assertThat(TestTables.read(table)).isEqualTo(model);
        MetricsSnapshot m = h.context.snapshot();
        h.assertPeakWithin(budget, m);
        assertThat(m.reservedBytes()).isZero();
        return m;
    }

    @Test
    void aPostponeBucketTableKeepsEveryRowInThePostponeBucket() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options("bucket", "-2"), true);
        Workload w = Workload.random(5, 10_000, 3_000, 3, 16);
        long committedRows = 0;
        try (GovernedTableWrite write = h.batchWriting(table, h.options("4m", "governance.memory.page-size", "16k"), w.rows())) {
            var prepared = write.prepareCommit();
            for (var message : prepared.messages()) {
                CommitMessageImpl impl = (CommitMessageImpl) message;
                assertThat(impl.bucket()).isEqualTo(-2);
                for (DataFileMeta f : impl.newFilesIncrement().newFiles()) {
                    committedRows += f.rowCount();
                }
            }
            prepared.commit();
        }
        assertThat(committedRows).as("the postpone bucket keeps every row until a rescale").isEqualTo(w.rows().size());
        assertThat(table.snapshotManager().latestSnapshot()).isNotNull();
        assertThat(h.context.snapshot().reservedBytes()).isZero();
        assertThat(h.spillScopes()).isEmpty();
    }

    private static long readAll(FileStoreTable table) throws Exception {
        long n = 0;
        var builder = table.newReadBuilder();
        try (var reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            var it = reader.toCloseableIterator();
            while (it.hasNext()) {
                InternalRow row = it.next();
                assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
                n++;
            }
        }
        return n;
    }
}
