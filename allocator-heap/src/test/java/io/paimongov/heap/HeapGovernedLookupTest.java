package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.read.GovernedLookup;
import io.paimongov.runtime.read.LookupSnapshot;
import io.paimongov.runtime.read.ReadCancelledException;
import io.paimongov.tck.SortedRunTable;
import io.paimongov.tck.SortedRunTable.Written;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Governed lookups into real primary-key tables of many sorted runs, written by plain Paimon, with
 * the heap allocator: every key's answer is the model's, the lookup files hold more than the budget
 * while the allocator's own peak stays within it (so the charged cache evicted), and a cancel stops
 * the next lookup.
 */
class HeapGovernedLookupTest {

    private static final int KEYS = 2_000;

    @TempDir Path dir;

    private Written table() throws Exception {
        return SortedRunTable.write(dir.resolve("wh"), "t", Map.of("file.format", "parquet"), 30, 300, KEYS, 400, 20, 11);
    }

    @Test
    void lookupsUnderATightBudgetGiveTheModelAndTheCacheStaysInTheBudget() throws Exception {
        Written t = table();
        try (ReadHarness h = new ReadHarness(dir, "2m"); GovernedLookup lookup = GovernedLookup.open(t.table(), h.context)) {
            lookup.refresh();
            assertLookups(lookup, t.model());
            long lookupFiles = bytesIn(h.context.spillScopeDir());
            LookupSnapshot m = lookup.metrics();
            assertThat(m.lookups()).isEqualTo(KEYS);
            assertThat(m.hits()).isEqualTo(t.model().size());
            assertThat(m.peakCacheBytes()).as("pages the cache kept").isPositive();
            assertThat(lookupFiles).as("the local lookup files hold more than the budget").isGreaterThan(2L << 20);
            assertThat(h.enginePeak()).as("the allocator's peak: the cache evicted to stay within the budget")
                    .isLessThanOrEqualTo(2L << 20);

            long more = SortedRunTable.writeRuns(t.table(), t.model(), 30, 4, 300, KEYS, 400, 20, 12);
            assertThat(more).isPositive();
            lookup.refresh();
            assertLookups(lookup, t.model());
            assertThat(lookup.metrics().refreshes()).isEqualTo(2);
        }
    }

    @Test
    void wideRowsUnderABudgetBelowOneBuildReaderAreBuiltInSmallerBatches() throws Exception {
        Written t = SortedRunTable.write(dir.resolve("wh"), "wide", Map.of("file.format", "parquet"), 12, 300, KEYS, 2_048, 20, 13);
        // A build reader of these files at read.batch-size is charged about 1.8 MB.
        try (ReadHarness h = new ReadHarness(dir, "1600k"); GovernedLookup lookup = GovernedLookup.open(t.table(), h.context)) {
            lookup.refresh();
            assertLookups(lookup, t.model());
            assertThat(lookup.metrics().buildBatchRows()).as("rows per batch of the build reader").isBetween(1L, 1023L);
            assertThat(h.enginePeak()).as("the allocator's peak").isLessThanOrEqualTo(1600L << 10);
        }
    }

    @Test
    void aCancelStopsTheNextLookupAndClosingLeavesNothing() throws Exception {
        Written t = table();
        try (ReadHarness h = new ReadHarness(dir, "4m")) {
            GovernedLookup lookup = GovernedLookup.open(t.table(), h.context);
            lookup.refresh();
            assertThat(lookup.lookup(BinaryRow.EMPTY_ROW, 0, GenericRow.of(t.model().keySet().iterator().next()))).isNotNull();
            h.context.cancel("the engine's cancel");
            assertThatThrownBy(() -> lookup.lookup(BinaryRow.EMPTY_ROW, 0, GenericRow.of(1)))
                    .isInstanceOf(ReadCancelledException.class).hasMessageContaining("the engine's cancel");
            assertThat(lookup.metrics().cancelled()).isTrue();
            lookup.close();
            assertThat(h.engineUsed()).as("held after the lookup closed").isZero();
        }
    }

    @Test
    void aTableWithoutAPrimaryKeyIsRefusedNamingIt() throws Exception {
        var append = TestTables.createTable(dir.resolve("wh"), "append", Map.of("bucket", "-1"), false);
        try (ReadHarness h = new ReadHarness(dir, "4m")) {
            assertThatThrownBy(() -> GovernedLookup.open(append, h.context))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("append").hasMessageContaining("no primary key");
        }
    }

    /** Every key of [0, KEYS): the model's value, or none. */
    private static void assertLookups(GovernedLookup lookup, Map<Integer, String> model) throws Exception {
        for (int k = 0; k < KEYS; k++) {
            InternalRow row = lookup.lookup(BinaryRow.EMPTY_ROW, 0, GenericRow.of(k));
            String expected = model.get(k);
            if (expected == null) {
                assertThat(row).as("key %d", k).isNull();
            } else {
                assertThat(row).as("key %d", k).isNotNull();
                assertThat(row.getString(1).toString()).as("key %d", k).isEqualTo(expected);
            }
        }
    }

    private static long bytesIn(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
