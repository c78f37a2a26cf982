package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.TableFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The demo run again on a warehouse that holds its table: with the same layout it continues into
 * it and verifies the merged table; with another layout it is refused naming the difference and
 * {@code --replace}; {@code --replace} drops and recreates it. The expected content is an
 * independent model: the table as read after the first run, with the second run's input rows
 * applied to it in a plain map (a delete removes its key, anything else puts its value), compared
 * with the table as read after the second run.
 */
class DemoRerunTest {

    private static final String[] SMALL = {"--keys", "700", "--partitions", "2", "--budget", "8m", "--json"};
    /** Defaults of these tests, unless a test gives the option. */
    private static final Map<String, String> DEFAULTS = Map.of("--rows", "4000", "--buckets", "2");

    @TempDir Path tmp;

    @Test
    void aSecondRunContinuesIntoThePrimaryKeyTableAndVerifiesTheMergedContent() throws Exception {
        Path wh = tmp.resolve("wh");
        assertThat(demo(wh, "--seed", "1").exitCode()).isZero();
        FileStoreTable table = CleanCommandTest.table(wh, "demo", "kv");
        Map<String, String> model = CleanCommandTest.content(table);

        // The second run's input: the generator of seed 2 starting from the table's keys.
        DemoWorkload input = new DemoWorkload(2, 2, 700, 32);
        input.startFrom(DemoBaseline.read(table, true));
        for (int i = 0; i < 4000; i++) {
            InternalRow row = input.next();
            String key = row.getInt(0) + "," + row.getInt(1);
            if (row.getRowKind() == RowKind.DELETE) {
                model.remove(key);
            } else {
                model.put(key, row.getString(2).toString());
            }
        }

        CliRun second = demo(wh, "--seed", "2");

        assertThat(second.exitCode()).as(second.err()).isZero();
        JsonNode json = second.json();
        assertThat(json.get("verified").asBoolean()).as(json.get("mismatch").asText()).isTrue();
        assertThat(json.get("expectedRows").asLong()).isEqualTo(model.size());
        assertThat(json.get("rowsReadBack").asLong()).isEqualTo(model.size());
        assertThat(CleanCommandTest.content(CleanCommandTest.table(wh, "demo", "kv"))).isEqualTo(model);
    }

    /**
     * Every provider, the engines' SQL paths included, run twice into one warehouse: the second run
     * deletes and overwrites keys only the first one wrote, which an engine's job has never seen
     * (Flink's {@code ChangelogNormalize} of an upsert source dropped such deletes). Spark's SQL
     * writes carry no row kind, so its rows drawn to delete are upserts (docs/cli.md). The seed of
     * the second run is the first's, as a plain rerun gives, or another; Flink's also with the
     * primary-key modes whose writes differ (dynamic buckets, deletion vectors, lookup changelog).
     */
    @ParameterizedTest(name = "{0}, table {1}, second seed {2}")
    @CsvSource({"heap, pk, 1", "heap, pk, 2", "offheap, pk, 1", "offheap, pk, 2", "flink, pk, 1", "flink, pk, 2",
        "spark, pk, 1", "spark, pk, 2", "flink, pk-dynamic, 2", "flink, pk-dv, 2", "flink, pk-lookup, 2"})
    void everyProvidersSecondRunDeletesAndOverwritesTheKeysOfTheFirst(String provider, String mode, long secondSeed)
            throws Exception {
        Path wh = tmp.resolve("wh");
        String[] rerun = {"demo", "--json", "--warehouse", wh.toString(), "--provider", provider, "--table", mode,
                "--rows", "2000", "--keys", "300", "--partitions", "2", "--buckets", "2", "--budget", "8m"};
        CliRun first = CliRun.of(concat(rerun, "--seed", "1"));
        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.json().get("verified").asBoolean()).as(first.json().get("mismatch").asText()).isTrue();
        FileStoreTable table = CleanCommandTest.table(wh, "demo", "kv");
        Map<String, String> model = CleanCommandTest.content(table);

        DemoWorkload input = new DemoWorkload(secondSeed, 2, 300, 32);
        if (provider.equals("spark")) {
            input.withoutDeletes();
        }
        input.startFrom(DemoBaseline.read(table, true));
        Set<String> writtenBySecond = new HashSet<>();
        int deletedOfTheFirstRun = 0;
        for (int i = 0; i < 2000; i++) {
            InternalRow row = input.next();
            String key = row.getInt(0) + "," + row.getInt(1);
            if (row.getRowKind() == RowKind.DELETE) {
                deletedOfTheFirstRun += writtenBySecond.contains(key) ? 0 : 1;
                model.remove(key);
            } else {
                model.put(key, row.getString(2).toString());
            }
            writtenBySecond.add(key);
        }
        if (!provider.equals("spark")) {
            assertThat(deletedOfTheFirstRun).as("deletes of keys only the first run wrote").isPositive();
        }

        CliRun second = CliRun.of(concat(rerun, "--seed", Long.toString(secondSeed)));

        assertThat(second.exitCode()).as(second.err() + second.out()).isZero();
        JsonNode json = second.json();
        assertThat(json.get("rowsWritten").asLong()).as("rows the writer took").isEqualTo(2000);
        assertThat(json.get("verified").asBoolean()).as(json.get("mismatch").asText()).isTrue();
        assertThat(json.get("expectedRows").asLong()).isEqualTo(model.size());
        assertThat(CleanCommandTest.content(CleanCommandTest.table(wh, "demo", "kv"))).isEqualTo(model);
    }

    @Test
    void anAppendTableKeepsTheRowsOfBothRuns() throws Exception {
        Path wh = tmp.resolve("wh");
        CliRun first = demo(wh, "--table", "append", "--rows", "1000", "--seed", "1");
        assertThat(first.exitCode()).as(first.err()).isZero();
        List<String> before = rows(CleanCommandTest.table(wh, "demo", "kv"));
        assertThat(before).hasSize(1000);

        CliRun same = demo(wh, "--table", "append", "--rows", "1500", "--seed", "1");

        assertThat(same.exitCode()).as(same.err()).isZero();
        assertThat(same.json().get("verified").asBoolean()).as(same.json().get("mismatch").asText()).isTrue();
        assertThat(same.json().get("expectedRows").asLong()).isEqualTo(2500);
        List<String> after = rows(CleanCommandTest.table(wh, "demo", "kv"));
        assertThat(after).hasSize(2500).containsAll(before);
    }

    @Test
    void aCancelledRunOnAContinuedTableLeavesWhatItHeld() throws Exception {
        Path wh = tmp.resolve("wh");
        assertThat(demo(wh, "--seed", "1").exitCode()).isZero();
        Map<String, String> held = CleanCommandTest.content(CleanCommandTest.table(wh, "demo", "kv"));

        CliRun cancelled = demo(wh, "--seed", "2", "--cancel-after-rows", "1000");

        assertThat(cancelled.exitCode()).as(cancelled.err()).isZero();
        JsonNode json = cancelled.json();
        assertThat(json.get("cancelled").asBoolean()).isTrue();
        assertThat(json.get("verified").asBoolean()).as(json.get("mismatch").asText()).isTrue();
        assertThat(json.get("expectedRows").asLong()).isEqualTo(held.size());
        assertThat(CleanCommandTest.content(CleanCommandTest.table(wh, "demo", "kv"))).isEqualTo(held);
    }

    @Test
    void anotherLayoutIsRefusedNamingTheDifferenceAndReplaceRecreatesTheTable() throws Exception {
        Path wh = tmp.resolve("wh");
        assertThat(demo(wh, "--seed", "1").exitCode()).isZero();
        Map<String, String> held = CleanCommandTest.content(CleanCommandTest.table(wh, "demo", "kv"));

        CliRun refused = demo(wh, "--seed", "1", "--buckets", "3");
        assertThat(refused.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).contains("'--warehouse'").contains("'bucket' is '2', this run asks for '3'")
                .contains("--replace");
        assertThat(CleanCommandTest.content(CleanCommandTest.table(wh, "demo", "kv"))).isEqualTo(held);

        CliRun otherMode = demo(wh, "--seed", "1", "--table", "append");
        assertThat(otherMode.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(otherMode.err()).contains("primary key").contains("--replace");

        CliRun replaced = demo(wh, "--seed", "1", "--buckets", "3", "--replace");
        CliRun fresh = demo(tmp.resolve("fresh"), "--seed", "1", "--buckets", "3");
        assertThat(replaced.exitCode()).as(replaced.err()).isZero();
        assertThat(replaced.json().get("verified").asBoolean()).isTrue();
        assertThat(replaced.json().get("expectedRows").asLong()).isEqualTo(fresh.json().get("expectedRows").asLong());
        FileStoreTable table = CleanCommandTest.table(wh, "demo", "kv");
        assertThat(table.schema().options()).containsEntry("bucket", "3");
        assertThat(CleanCommandTest.content(table))
                .isEqualTo(CleanCommandTest.content(CleanCommandTest.table(tmp.resolve("fresh"), "demo", "kv")));
    }

    @Test
    void theOrphanMarginIsPassedToTheWriteAndABadOneNamesTheOption() throws Exception {
        CliRun bad = CliRun.of("demo", "--orphans-older-than", "1 day");
        assertThat(bad.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(bad.err()).contains("'--orphans-older-than'").contains("'1 day' is not a duration");

        Path wh = tmp.resolve("wh");
        assertThat(demo(wh, "--seed", "1").exitCode()).isZero();
        FileStoreTable table = CleanCommandTest.table(wh, "demo", "kv");
        // An orphan the way a killed write leaves one: a data file no snapshot references.
        Path dir = Path.of(table.location().toUri().getPath());
        Path data;
        try (var walk = java.nio.file.Files.walk(dir)) {
            data = walk.filter(p -> p.getFileName().toString().startsWith("data-")).findFirst().orElseThrow();
        }
        java.nio.file.Files.copy(data, data.resolveSibling("data-" + java.util.UUID.randomUUID() + "-0.parquet"));
        assertThat(TableFiles.unreferenced(table)).hasSize(1);

        CliRun kept = demo(wh, "--seed", "2", "--orphans-older-than", "off");
        assertThat(kept.exitCode()).as(kept.err()).isZero();
        assertThat(TableFiles.unreferenced(table)).as("with off").hasSize(1);

        CliRun swept = demo(wh, "--seed", "3", "--orphans-older-than", "0s");
        assertThat(swept.exitCode()).as(swept.err()).isZero();
        assertThat(TableFiles.unreferenced(table)).as("with 0s").isEmpty();
    }

    private CliRun demo(Path warehouse, String... more) {
        List<String> args = new ArrayList<>(List.of("demo"));
        args.addAll(List.of(SMALL));
        args.addAll(List.of("--warehouse", warehouse.toString()));
        args.addAll(List.of(more));
        DEFAULTS.forEach((option, value) -> {
            if (!args.contains(option)) {
                args.addAll(List.of(option, value));
            }
        });
        return CliRun.of(args.toArray(String[]::new));
    }

    private static String[] concat(String[] head, String... tail) {
        List<String> all = new ArrayList<>(List.of(head));
        all.addAll(List.of(tail));
        return all.toArray(String[]::new);
    }

    /** The table's rows as "p,k,v" strings, duplicates kept, in read order. */
    private static List<String> rows(FileStoreTable table) throws Exception {
        List<String> rows = new ArrayList<>();
        DemoTable.forEachRow(table, r -> rows.add(r.getInt(0) + "," + r.getInt(1) + "," + r.getString(2)));
        return rows;
    }
}
