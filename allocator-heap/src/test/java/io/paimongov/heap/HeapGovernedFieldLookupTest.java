package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.read.GovernedFieldLookup;
import io.paimongov.runtime.read.LookupSnapshot;
import io.paimongov.runtime.read.ReadCancelledException;
import io.paimongov.runtime.read.GovernedTableRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Governed lookups by a field that is no key (k of an append table partitioned by p, many rows per
 * k), with the heap allocator: when the table fits the cache every answer comes from the cache,
 * when it does not the keys not cached are read from the table and the cache stays within its half
 * of the budget; either way each answer is the model's (every row written with that k). A refresh
 * takes new rows; a cancel stops the next lookup.
 */
class HeapGovernedFieldLookupTest {

    private static final int KEYS = 700;
    private static final int[] PROJECTION = {2, 0};
    private static final int[] BY_K = {1};

    @TempDir Path dir;

    /** Writes {@code rows} rows of random k below {@code KEYS} and values of {@code bytes} characters; the model gains "v@p" per k. */
    private static void write(FileStoreTable table, Map<Integer, List<String>> model, int rows, int bytes, long seed) throws Exception {
        Random random = new Random(seed);
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            for (int i = 0; i < rows; i++) {
                int p = random.nextInt(3);
                int k = random.nextInt(KEYS);
                String v = TestTables.value(random, seed + "-" + i + "-", bytes);
                write.write(GenericRow.of(p, k, BinaryString.fromString(v)));
                model.computeIfAbsent(k, x -> new ArrayList<>()).add(v + "@" + p);
            }
            commit.commit(write.prepareCommit());
        }
    }

    private FileStoreTable table(Map<Integer, List<String>> model, int rows, int bytes) throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "facts", Map.of("bucket", "-1"), false);
        write(table, model, rows, bytes, 5);
        return table;
    }

    @Test
    void aTableThatFitsIsAnsweredFromTheCacheAndRefreshTakesNewRows() throws Exception {
        Map<Integer, List<String>> model = new TreeMap<>();
        FileStoreTable table = table(model, 5_000, 40);
        try (ReadHarness h = new ReadHarness(dir, "64m"); GovernedFieldLookup lookup = GovernedFieldLookup.open(table, h.context, PROJECTION, BY_K)) {
            lookup.refresh();
            assertLookups(lookup, model);
            assertThat(lookup.metrics().keyScans()).as("every key answered from the cache").isZero();
            long keysBefore = model.size();

            write(table, model, 500, 40, 6);
            lookup.refresh();
            assertLookups(lookup, model);
            LookupSnapshot m = lookup.metrics();
            assertThat(m.keyScans()).isZero();
            assertThat(m.refreshes()).isEqualTo(2);
            assertThat(m.hits()).as("keys with rows, in both rounds").isEqualTo(keysBefore + model.size());
        }
    }

    @Test
    void aTableThatDoesNotFitReadsKeysNotCachedEvictsAndStaysInItsShare() throws Exception {
        Map<Integer, List<String>> model = new TreeMap<>();
        FileStoreTable table = table(model, 10_000, 200);
        try (ReadHarness h = new ReadHarness(dir, "3m"); GovernedFieldLookup lookup = GovernedFieldLookup.open(table, h.context, PROJECTION, BY_K)) {
            lookup.refresh();
            for (int k = 0; k < 400; k++) {
                assertThat(answer(lookup, k)).as("k %d", k).isEqualTo(expected(model, k));
            }
            assertThat(lookup.metrics().keyScans()).as("each key read from the table once").isEqualTo(400);
            assertThat(answer(lookup, 399)).isEqualTo(expected(model, 399));
            assertThat(lookup.metrics().keyScans()).as("the key just read is cached").isEqualTo(400);
            for (int k = 0; k < 400; k++) {
                assertThat(answer(lookup, k)).as("k %d again", k).isEqualTo(expected(model, k));
            }
            LookupSnapshot m = lookup.metrics();
            assertThat(m.keyScans()).as("keys evicted and read again: 400 keys hold more than the cache's share").isGreaterThan(400);
            assertThat(m.peakCacheBytes()).as("the cache's peak, within half the budget").isPositive().isLessThanOrEqualTo(3L << 19);
            assertThat(h.enginePeak()).as("the allocator's peak").isLessThanOrEqualTo(3L << 20);
        }
    }

    @Test
    void aRestrictedLookupSeesOnlyTheRowsItsFilterKeeps() throws Exception {
        Map<Integer, List<String>> model = new TreeMap<>();
        FileStoreTable table = table(model, 3_000, 40);
        int[] byKAndP = {1, 0};
        try (ReadHarness h = new ReadHarness(dir, "16m"); GovernedFieldLookup lookup = GovernedFieldLookup.open(table, h.context, PROJECTION, byKAndP)) {
            lookup.restrict(new PredicateBuilder(table.rowType()).equal(0, 2));
            lookup.refresh();
            for (int k = 0; k < KEYS; k++) {
                for (int p = 0; p < 3; p++) {
                    List<String> rows = new ArrayList<>();
                    for (InternalRow row : lookup.lookup(GenericRow.of(k, p))) {
                        rows.add(row.getString(0) + "@" + row.getInt(1));
                    }
                    int partition = p;
                    List<String> expected = p != 2 ? List.of()
                            : expected(model, k).stream().filter(v -> v.endsWith("@" + partition)).toList();
                    assertThat(rows.stream().sorted().toList()).as("k %d in p %d", k, p).isEqualTo(expected);
                }
            }
            assertThat(lookup.metrics().keyScans()).as("partition 2 fits: no key read from the table").isZero();
        }
    }

    @Test
    void aLoadThatFailsKeepsNoKeyAndTheNextRefreshLoadsAgain() throws Exception {
        Map<Integer, List<String>> model = new TreeMap<>();
        FileStoreTable table = table(model, 2_000, 40);
        write(table, model, 2_000, 40, 6);
        try (ReadHarness h = new ReadHarness(dir.resolve("h"), "64m"); GovernedFieldLookup lookup = GovernedFieldLookup.open(table, h.context, PROJECTION, BY_K)) {
            // A file of the partition the load reads last goes missing: the partitions before it are loaded first.
            List<Split> splits;
            try (GovernedTableRead read = h.open(table)) {
                splits = read.plan();
            }
            assertThat(splits).as("one split per partition").hasSize(3);
            String last = "p=" + ((DataSplit) splits.get(2)).partition().getInt(0) + "/";
            Path newest = TestTables.dataFiles(table).stream().filter(f -> f.toString().contains(last))
                    .max(Comparator.comparingLong(f -> f.toFile().lastModified())).orElseThrow();
            Path aside = dir.resolve("aside");
            Files.move(newest, aside);
            assertThatThrownBy(lookup::refresh).as("a data file is missing").isInstanceOfAny(IOException.class, UncheckedIOException.class);
            assertThat(lookup.metrics().cacheBytes()).as("keys kept from the files read before the failure").isZero();
            Files.move(aside, newest);
            lookup.refresh();
            assertLookups(lookup, model);
            assertThat(lookup.metrics().keyScans()).isZero();
        }
    }

    @Test
    void aCancelStopsTheNextLookupAndClosingLeavesNothing() throws Exception {
        Map<Integer, List<String>> model = new TreeMap<>();
        FileStoreTable table = table(model, 2_000, 40);
        try (ReadHarness h = new ReadHarness(dir, "16m")) {
            GovernedFieldLookup lookup = GovernedFieldLookup.open(table, h.context, PROJECTION, BY_K);
            lookup.refresh();
            assertThat(answer(lookup, model.keySet().iterator().next())).isNotEmpty();
            h.context.cancel("the engine's cancel");
            assertThatThrownBy(() -> lookup.lookup(GenericRow.of(1)))
                    .isInstanceOf(ReadCancelledException.class).hasMessageContaining("the engine's cancel");
            assertThat(lookup.metrics().cancelled()).isTrue();
            lookup.close();
            assertThat(h.engineUsed()).as("held after the lookup closed").isZero();
        }
    }

    @Test
    void keysOutsideTheTableAreRefusedNamingThem() throws Exception {
        FileStoreTable table = table(new TreeMap<>(), 10, 4);
        try (ReadHarness h = new ReadHarness(dir, "4m")) {
            assertThatThrownBy(() -> GovernedFieldLookup.open(table, h.context, PROJECTION, new int[] {3}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("facts").hasMessageContaining("[3]");
        }
    }

    private static void assertLookups(GovernedFieldLookup lookup, Map<Integer, List<String>> model) throws Exception {
        for (int k = 0; k < KEYS + 10; k++) {
            assertThat(answer(lookup, k)).as("k %d", k).isEqualTo(expected(model, k));
        }
    }

    private static List<String> answer(GovernedFieldLookup lookup, int k) throws Exception {
        List<String> rows = new ArrayList<>();
        for (InternalRow row : lookup.lookup(GenericRow.of(k))) {
            rows.add(row.getString(0) + "@" + row.getInt(1));
        }
        return rows.stream().sorted().toList();
    }

    private static List<String> expected(Map<Integer, List<String>> model, int k) {
        return model.getOrDefault(k, List.of()).stream().sorted().toList();
    }
}
