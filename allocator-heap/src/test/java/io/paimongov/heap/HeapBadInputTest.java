package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input at the write level, on real tables: an unknown provider, a budget below what the
 * table needs to open, and rows that are null or do not match the schema. Each fails with an error
 * naming what is wrong, and nothing is lost: the failed write gives every byte back and leaves no
 * spill scope, and what was committed before is intact.
 */
@Tag("reliability")
class HeapBadInputTest {

    @TempDir Path dir;

    @Test
    void anUnknownProviderNamesTheKeyAndListsTheProvidersFound() {
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.PROVIDER, "hepa"));
        assertThatThrownBy(() -> ResourceContext.open("w", options, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown governance provider 'hepa' ('governance.provider'); found: ")
                .hasMessageContaining("heap");
    }

    /**
     * The table's floor: fixed reservations plus one writer's estimate and its {@value
     * GovernedTableWrite#MIN_WRITER_PAGES} pages. One page below it fails at open, naming the option,
     * every part of the minimum and the minimum itself; at it the write opens, and with one more
     * writer's room it writes two buckets.
     */
    @Test
    void aBudgetBelowTheTablesMinimumFailsAtOpenNamingTheOptionAndLeavesNothing() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        long minimum = minimumBudget(h, table);
        System.out.printf("minimum budget of a PK parquet table with 64k pages: %d bytes%n", minimum);
        long belowBudget = minimum - 64 * 1024;
        Throwable below = catchThrowable(() -> h.batch(table, h.options(Long.toString(belowBudget))));
        // docs/configuration.md quotes this message.
        System.out.printf("one page below it: %s%n", below.getMessage());
        assertThat(below)
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining("'this table's minimum: flush file writer ")
                .hasMessageContaining(" + spill I/O buffers ")
                .hasMessageContaining(" + compaction (one task) ")
                .hasMessageContaining("raise 'governance.memory.budget' from " + Sizes.format(belowBudget) + " to at least ");
        // The minimum the message names is the one real opens find (which moves in whole pages).
        String named = below.getMessage().replaceAll("(?s).*to at least (\\S+).*", "$1");
        assertThat(Sizes.parse("named", named)).isGreaterThan(minimum - 64 * 1024).isLessThanOrEqualTo(minimum);
        assertThat(h.context.isClosed()).isTrue();
        assertThat(h.provider.lastOpened().usedAtClose()).isZero();
        assertThat(h.spillScopes()).isEmpty();
        // The minimum holds one writer; these rows go to 2 partitions x 2 buckets, so the write gets
        // three more writers' room (each its footprint and 3 pages, in whole pages).
        h.writeAndCommit(table, h.options(Long.toString(minimum + 10 * 64 * 1024)), rows(0, 2000));
        assertThat(TestTables.read(table)).hasSize(2000);
    }

    /** PROV.7: a budget the heap cannot give is refused when the context opens, with the key and both numbers. */
    @Test
    void aBudgetLargerThanTheHeapIsRefusedAtOpenWithTheHeapsNumbers() {
        long max = Runtime.getRuntime().maxMemory();
        long budget = max + (64L << 20);
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, Long.toString(budget), GovernanceOptions.SPILL_DIRS, dir.toString()));
        assertThatThrownBy(() -> ResourceContext.open("w", new HeapGovernanceProvider(), options, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'governance.memory.budget' = " + budget + " bytes is larger than the heap can give")
                .hasMessageContaining("the JVM's maximum heap is " + max + " bytes (-Xmx)")
                .hasMessageEndingWith("lower 'governance.memory.budget' or raise -Xmx");
        GovernanceOptions fits = options.with(GovernanceOptions.MEMORY_BUDGET, Long.toString(max / 16));
        ResourceContext.open("w", new HeapGovernanceProvider(), fits, EngineEnvironment.standalone()).close();
    }

    /** The smallest budget, in whole pages, at which the write opens (bisection on real opens). */
    private static long minimumBudget(WriteHarness h, FileStoreTable table) throws Exception {
        long page = 64 * 1024;
        long low = 8, high = 64;
        while (low < high) {
            long mid = (low + high) / 2;
            boolean opens;
            try (GovernedTableWrite w = h.batch(table, h.options(Long.toString(mid * page)))) {
                opens = true;
            } catch (ResourceExhaustedException e) {
                opens = false;
            }
            if (opens) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low * page;
    }

    @Test
    void aNullRowIsRefusedAndTheWriteGoesOn() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        try (GovernedTableWrite write = h.batch(table, h.options("8m"))) {
            write.write(rows(0, 10).get(0));
            Throwable t = catchThrowable(() -> write.write(null));
            System.out.println("null row: " + t);
            assertThat(t).isInstanceOf(NullPointerException.class)
                    .hasMessage("row is null; table 't' takes rows of (p INT NOT NULL, k INT NOT NULL, v STRING)");
            for (InternalRow row : rows(0, 10)) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        assertThat(TestTables.read(table)).hasSize(10);
    }

    /**
     * A row that does not fit the table is refused before it reaches Paimon (whose own failures
     * would be an ArrayIndexOutOfBounds, a ClassCastException, or for an extra field nothing at
     * all), with a message naming the field; the write goes on and commits everything
     * else: nothing is lost, nothing is left behind.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"too few fields", "too many fields", "wrong field type", "null primary key", "null partition"})
    void aRowThatDoesNotFitIsRefusedNamingTheFieldAndTheWriteGoesOn(String kind) throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        h.writeAndCommit(table, h.options("8m"), rows(0, 500));
        Map<List<Integer>, String> expected = new HashMap<>(TestTables.read(table));
        rows(1000, 20_000).forEach(r -> expected.put(List.of(r.getInt(0), r.getInt(1)), r.getString(2).toString()));

        try (GovernedTableWrite write = h.batch(table, h.options("3m", GovernanceOptions.PAGE_SIZE, "16k"))) {
            for (InternalRow row : rows(1000, 10_000)) {
                write.write(row);
            }
            assertThatThrownBy(() -> write.write(bad(kind)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message(kind));
            for (InternalRow row : rows(11_000, 10_000)) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        assertThat(h.context.snapshot().reservedBytes()).isZero();
        assertThat(h.provider.lastOpened().usedAtClose()).isZero();
        assertThat(h.spillScopes()).isEmpty();
        assertThat(TestTables.read(table)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"too few fields", "too many fields", "wrong field type", "null primary key", "null partition"})
    void aRowThatDoesNotFitTheTableIsRefusedNamingWhatIsWrongAndTheWriteGoesOn(String kind) throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        WriteHarness h = new WriteHarness(dir.resolve("harness"));
        List<InternalRow> good = rows(0, 10);
        try (GovernedTableWrite write = h.batch(table, h.options("16m"))) {
            assertThatThrownBy(() -> write.write(bad(kind))).isInstanceOf(IllegalArgumentException.class).hasMessage(message(kind));
            for (InternalRow row : good) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        Map<List<Integer>, String> expected = new HashMap<>();
        good.forEach(r -> expected.put(List.of(r.getInt(0), r.getInt(1)), r.getString(2).toString()));
        assertThat(TestTables.read(table)).isEqualTo(expected);
    }

    private static String message(String kind) {
        return switch (kind) {
            case "too few fields" -> "row has 2 fields; table 't' has 3: (p INT NOT NULL, k INT NOT NULL, v STRING)";
            case "too many fields" -> "row has 4 fields; table 't' has 3: (p INT NOT NULL, k INT NOT NULL, v STRING)";
            case "wrong field type" -> "field 'k' (INT NOT NULL) of table 't' holds a org.apache.paimon.data.BinaryString;"
                    + " a java.lang.Integer is expected";
            case "null primary key" -> "field 'k' (INT NOT NULL) of table 't' is null";
            default -> "field 'p' (INT NOT NULL) of table 't' is null";
        };
    }

    private static InternalRow bad(String kind) {
        return switch (kind) {
            case "too few fields" -> GenericRow.of(1, 2);
            case "too many fields" -> GenericRow.of(1, 2, BinaryString.fromString("v"), 4);
            case "wrong field type" -> GenericRow.of(1, BinaryString.fromString("not an int"), BinaryString.fromString("v"));
            case "null primary key" -> GenericRow.of(1, null, BinaryString.fromString("v"));
            case "null partition" -> GenericRow.of(null, 5, BinaryString.fromString("v"));
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static List<InternalRow> rows(int from, int count) {
        return java.util.stream.IntStream.range(from, from + count)
                .mapToObj(i -> (InternalRow) GenericRow.of(i % 2, i, BinaryString.fromString("value-" + i + "-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")))
                .toList();
    }
}
