package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.read.GovernedSplitReader;
import io.paimongov.runtime.read.GovernedTableRead;
import io.paimongov.runtime.read.OutputBatch;
import io.paimongov.runtime.read.ReadCancelledException;
import io.paimongov.runtime.read.ReadSnapshot;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.tck.SortedRunTable;
import io.paimongov.tck.SortedRunTable.Written;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import io.paimongov.fixtures.TestTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Governed reads on real Paimon tables of many overlapping sorted runs, written by plain Paimon,
 * with the heap allocator. Expected rows come from the model of what was written ({@link
 * SortedRunTable}) or, for merge engines the model does not know, from Paimon's own read of the same
 * table; memory figures from the allocator's own counters.
 */
class HeapGovernedReadTest {

    private static final int RUNS = Integer.getInteger("governance.test.read-runs", 40);

    @TempDir Path dir;

    private Written manyRuns(String format, Map<String, String> options, int deleteEvery) throws Exception {
        Map<String, String> all = new java.util.HashMap<>(options);
        all.put("file.format", format);
        return SortedRunTable.write(dir.resolve("wh"), "t", all, RUNS, 300, 2_000, 200, deleteEvery, 42);
    }

    @ParameterizedTest
    @ValueSource(strings = {"parquet", "orc", "avro"})
    void aBudgetBelowTheMergeMergesInPassesWithinItAndGivesTheModel(String format) throws Exception {
        Written t = manyRuns(format, Map.of(), 20);
        try (ReadHarness h = new ReadHarness(dir.resolve("small"), "2m"); GovernedTableRead read = h.open(t.table())) {
            assertThat(ReadHarness.readAll(read)).isEqualTo(t.model());
            ReadSnapshot m = read.metrics();
            assertThat(m.mostRunsInASection()).as("runs merged in one section").isEqualTo(RUNS);
            assertThat(m.sectionsInPasses()).as("sections merged in passes").isPositive();
            assertThat(m.mergePasses()).isPositive();
            assertThat(m.spillBytes()).isPositive();
            assertThat(h.enginePeak()).as("the allocator's peak").isPositive().isLessThanOrEqualTo(2 << 20);
            read.close();
            assertThat(h.engineUsed()).as("held after the read").isZero();
            assertThat(h.spillFiles()).as("spilled runs left").isZero();
        }
        try (ReadHarness h = new ReadHarness(dir.resolve("large"), "256m"); GovernedTableRead read = h.open(t.table())) {
            assertThat(ReadHarness.readAll(read)).isEqualTo(t.model());
            assertThat(read.metrics().sectionsInPasses()).as("a budget that holds every reader merges at once").isZero();
            assertThat(read.metrics().peakReservedBytes()).isPositive();
        }
    }

    @Test
    void wideRowsUnderABudgetBelowOneReaderAtTheTablesBatchAreReadInSmallerBatches() throws Exception {
        // 2 KiB values in files of 300 rows: a reader at read.batch-size is charged about 1.8 MB, beside a spill channel.
        Written t = SortedRunTable.write(dir.resolve("wh"), "wide", Map.of("file.format", "parquet"), 12, 300, 2_000, 2_048, 20, 7);
        try (ReadHarness h = new ReadHarness(dir.resolve("tight"), "1800k"); GovernedTableRead read = h.open(t.table())) {
            assertThat(ReadHarness.readAll(read)).isEqualTo(t.model());
            assertThat(read.metrics().smallerBatchSplits()).as("splits read in smaller batches").isPositive();
            assertThat(h.enginePeak()).as("the allocator's peak").isPositive().isLessThanOrEqualTo(1800L << 10);
        }
        try (ReadHarness h = new ReadHarness(dir.resolve("ample"), "64m"); GovernedTableRead read = h.open(t.table())) {
            assertThat(ReadHarness.readAll(read)).isEqualTo(t.model());
            assertThat(read.metrics().smallerBatchSplits()).as("a budget that holds the table's batches").isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"partial-update", "aggregation", "descending-sequence-field"})
    void mergeEnginesGiveWhatPaimonsOwnReadGivesWhenMergedInPasses(String engine) throws Exception {
        Map<String, String> options = new TreeMap<>();
        if (engine.equals("descending-sequence-field")) {
            // The first run's row wins: the merge orders a key's rows by the user's sequence field.
            options.put("sequence.field", "n");
            options.put("sequence.field.sort-order", "descending");
        } else {
            options.put("merge-engine", engine);
        }
        if (engine.equals("aggregation")) {
            options.put("fields.n.aggregate-function", "sum");
            options.put("fields.v.aggregate-function", "max");
        }
        Written t = manyRuns("parquet", options, 0);
        List<String> expected = paimonRows(t.table());
        assertThat(expected).hasSize(t.model().size());
        try (ReadHarness h = new ReadHarness(dir.resolve("small"), "2m"); GovernedTableRead read = h.open(t.table())) {
            assertThat(rows(read)).isEqualTo(expected);
            assertThat(read.metrics().mergePasses()).isPositive();
        }
    }

    @Test
    void outputBatchesStayChargedUntilClosedAndAreGivenBackOnce() throws Exception {
        Written t = manyRuns("parquet", Map.of(), 20);
        try (ReadHarness h = new ReadHarness(dir, "8m"); GovernedTableRead read = h.open(t.table())) {
            List<Split> splits = read.plan();
            long planned = h.engineUsed();
            assertThat(planned).as("the plan is charged").isPositive();
            List<OutputBatch> kept = new ArrayList<>();
            Map<Integer, String> rows = new TreeMap<>();
            for (Split split : splits) {
                try (GovernedSplitReader reader = read.reader(split)) {
                    OutputBatch batch;
                    while ((batch = reader.nextBatch(100)) != null) {
                        kept.add(batch);
                        for (InternalRow row : batch.rows()) {
                            rows.put(row.getInt(0), row.getString(1).toString());
                        }
                    }
                }
            }
            assertThat(rows).isEqualTo(t.model());
            long charged = kept.stream().mapToLong(OutputBatch::bytes).sum();
            long rowBytes = t.model().values().stream().mapToLong(String::length).sum();
            assertThat(charged).as("output held by the engine, at least the rows' characters").isGreaterThan(rowBytes);
            assertThat(h.engineUsed() - planned).as("the allocator holds the kept batches").isEqualTo(charged);
            for (OutputBatch b : kept) {
                b.close();
                b.close();
            }
            assertThat(h.engineUsed()).as("every batch given back, once").isEqualTo(planned);
            assertThat(read.metrics().outputBatchesReleased()).isEqualTo(kept.size());
            assertThat(read.metrics().outputBytesHeld()).isZero();
        }
    }

    @Test
    void aCancelAtAnyGrantStopsTheReadAndLeavesNothing() throws Exception {
        Written t = manyRuns("parquet", Map.of(), 20);
        AtomicInteger grants = new AtomicInteger();
        try (ReadHarness h = new ReadHarness(dir.resolve("count"), "2m"); GovernedTableRead read = h.open(t.table())) {
            h.provider.onGrant(o -> grants.incrementAndGet());
            ReadHarness.readAll(read);
        }
        int total = grants.get();
        assertThat(total).as("grants in one read").isGreaterThan(8);
        for (int at = 1; at <= total; at += Math.max(1, total / 8)) {
            int stopAt = at;
            AtomicInteger seen = new AtomicInteger();
            try (ReadHarness h = new ReadHarness(dir.resolve("at" + at), "2m"); GovernedTableRead read = h.open(t.table())) {
                h.provider.onGrant(o -> {
                    if (seen.incrementAndGet() == stopAt) {
                        h.context.cancel("cancelled at grant " + stopAt);
                    }
                });
                assertThatThrownBy(() -> ReadHarness.readAll(read)).as("cancelled at grant %d of %d", stopAt, total)
                        .isInstanceOf(ReadCancelledException.class).hasMessageContaining("grant " + stopAt);
                assertThat(read.metrics().cancelled()).isTrue();
                read.close();
                assertThat(h.engineUsed()).as("held after a cancel at grant %d", stopAt).isZero();
                assertThat(h.spillFiles()).as("spilled runs left after a cancel at grant %d", stopAt).isZero();
            }
        }
    }

    @Test
    void aCancelBeforePlanningOrWhileTheEngineHoldsOutputBatchesStopsTheReadAndTheBatchesStillGoBack() throws Exception {
        Written t = manyRuns("parquet", Map.of(), 20);
        try (ReadHarness h = new ReadHarness(dir.resolve("plan"), "2m"); GovernedTableRead read = h.open(t.table())) {
            h.context.cancel("before planning");
            assertThatThrownBy(read::plan).isInstanceOf(ReadCancelledException.class).hasMessageContaining("before planning");
            read.close();
            assertThat(h.engineUsed()).isZero();
        }
        try (ReadHarness h = new ReadHarness(dir.resolve("output"), "4m"); GovernedTableRead read = h.open(t.table())) {
            List<Split> splits = read.plan();
            List<OutputBatch> kept = new ArrayList<>();
            try (GovernedSplitReader reader = read.reader(splits.get(0))) {
                kept.add(reader.nextBatch(100));
                kept.add(reader.nextBatch(100));
                h.context.cancel("while the engine holds two batches");
                assertThatThrownBy(() -> reader.nextBatch(100)).isInstanceOf(ReadCancelledException.class);
            }
            long held = kept.stream().mapToLong(OutputBatch::bytes).sum();
            long planned = read.metrics().reservedBytes();
            assertThat(h.engineUsed()).as("the batches the engine holds stay charged, beside the plan").isEqualTo(held + planned);
            kept.forEach(OutputBatch::close);
            read.close();
            assertThat(h.engineUsed()).isZero();
            assertThat(h.spillFiles()).isZero();
        }
    }

    @Test
    void aBudgetWithNoRoomForOnePassFailsTypedNamingTheReaderAndLeavesNothing() throws Exception {
        Written t = manyRuns("parquet", Map.of(), 20);
        try (ReadHarness h = new ReadHarness(dir, "256k"); GovernedTableRead read = h.open(t.table())) {
            assertThatThrownBy(() -> ReadHarness.readAll(read))
                    .isInstanceOfSatisfying(ResourceExhaustedException.class,
                            e -> assertThat(e.requester()).startsWith("read ").contains(" of t (bucket 0, " + RUNS + " files)"));
            read.close();
            assertThat(h.engineUsed()).isZero();
            assertThat(h.spillFiles()).isZero();
        }
    }

    @Test
    void deletionVectorTablesAreReadByPaimonsOwnReadWithinTheBudget() throws Exception {
        Written t = manyRuns("parquet", Map.of("deletion-vectors.enabled", "true", "write-only", "false"), 20);
        try (ReadHarness h = new ReadHarness(dir, "2m"); GovernedTableRead read = h.open(t.table())) {
            assertThat(ReadHarness.readAll(read)).isEqualTo(paimonModel(t.table()));
            assertThat(read.metrics().sectionsMerged()).as("deletion vectors need no merge").isZero();
            assertThat(read.metrics().peakReservedBytes()).isPositive();
            assertThat(h.enginePeak()).isLessThanOrEqualTo(2 << 20);
        }
    }

    @Test
    void appendTablesAreReadByPaimonsOwnReadOneFileAtATimeWithinTheBudget() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "append", Map.of("bucket", "-1", "file.format", "parquet"), false);
        List<InternalRow> written = new ArrayList<>();
        for (int commit = 0; commit < 6; commit++) {
            List<InternalRow> rows = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                rows.add(GenericRow.of(commit, i, BinaryString.fromString(TestTables.value(new java.util.Random(commit * 1000L + i), "v", 300))));
            }
            commitPlain(table, rows);
            written.addAll(rows);
        }
        try (ReadHarness h = new ReadHarness(dir, "2m"); GovernedTableRead read = h.open(table)) {
            List<String> rows = new ArrayList<>();
            for (Split split : read.plan()) {
                try (GovernedSplitReader reader = read.reader(split)) {
                    reader.forEachRemaining(r -> rows.add(r.getInt(0) + "|" + r.getInt(1) + "|" + r.getString(2)));
                }
            }
            List<String> expected = new ArrayList<>();
            for (InternalRow r : written) {
                expected.add(r.getInt(0) + "|" + r.getInt(1) + "|" + r.getString(2));
            }
            assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
            ReadSnapshot m = read.metrics();
            assertThat(m.sectionsMerged()).as("an append table merges nothing").isZero();
            assertThat(m.filesOpened()).as("every data file").isEqualTo(TestTables.dataFiles(table).size());
            assertThat(m.peakReservedBytes()).as("one file reader at a time, charged").isPositive();
            assertThat(h.enginePeak()).isLessThanOrEqualTo(2 << 20);
            read.close();
            assertThat(h.engineUsed()).isZero();
        }
    }

    @Test
    void aStreamScansSplitsAreReadWithoutMergingAndWithinTheBudget() throws Exception {
        Written t = manyRuns("parquet", Map.of(), 20);
        StreamTableScan scan = t.table().newReadBuilder().newStreamScan();
        try (ReadHarness h = new ReadHarness(dir, "2m"); GovernedTableRead read = h.open(t.table())) {
            Map<Integer, String> first = new TreeMap<>();
            for (Split split : scan.plan().splits()) {
                try (GovernedSplitReader reader = read.reader(split)) {
                    reader.forEachRemaining(r -> first.put(r.getInt(0), r.getString(1).toString()));
                }
            }
            assertThat(first).as("the stream's first plan: the snapshot, merged").isEqualTo(t.model());
            long merged = read.metrics().sectionsMerged();

            long more = SortedRunTable.writeRuns(t.table(), t.model(), RUNS, 3, 300, 2_000, 200, 20, 43);
            List<InternalRow> changes = new ArrayList<>();
            List<Split> splits;
            while (!(splits = scan.plan().splits()).isEmpty()) {
                for (Split split : splits) {
                    try (GovernedSplitReader reader = read.reader(split)) {
                        reader.forEachRemaining(r -> changes.add(GenericRow.of(r.getInt(0))));
                    }
                }
            }
            assertThat(changes).as("every row of the three new runs, each once").hasSize((int) more);
            assertThat(read.metrics().sectionsMerged()).as("streaming splits are not merged").isEqualTo(merged);
            assertThat(h.enginePeak()).isLessThanOrEqualTo(2 << 20);
            read.close();
            assertThat(h.engineUsed()).isZero();
        }
    }

    /** Writes {@code rows} with plain Paimon in one batch commit. */
    private static void commitPlain(FileStoreTable table, List<InternalRow> rows) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            for (InternalRow row : rows) {
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
    }

    /** Rows of Paimon's own read of {@code table}, as text, in key order. */
    private static List<String> paimonRows(FileStoreTable table) throws Exception {
        ReadBuilder rb = table.newReadBuilder();
        Map<Integer, String> rows = new TreeMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(r -> rows.put(r.getInt(0), text(r)));
        }
        return new ArrayList<>(rows.values());
    }

    private static Map<Integer, String> paimonModel(FileStoreTable table) throws Exception {
        ReadBuilder rb = table.newReadBuilder();
        Map<Integer, String> rows = new TreeMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(r -> rows.put(r.getInt(0), r.getString(1).toString()));
        }
        return rows;
    }

    private static List<String> rows(GovernedTableRead read) throws Exception {
        Map<Integer, String> rows = new TreeMap<>();
        for (Split split : read.plan()) {
            try (GovernedSplitReader reader = read.reader(split)) {
                reader.forEachRemaining(r -> rows.put(r.getInt(0), text(r)));
            }
        }
        return new ArrayList<>(rows.values());
    }

    private static String text(InternalRow r) {
        return r.getRowKind().shortString() + "|" + r.getInt(0) + "|" + (r.isNullAt(1) ? "null" : r.getString(1)) + "|"
                + (r.isNullAt(2) ? "null" : r.getLong(2));
    }
}
