package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demo}, {@code clean} and {@code sql} on a warehouse whose table the test damages as a disk
 * or a person would: a manifest truncated or deleted, a snapshot or schema file overwritten with
 * garbage, a data file deleted. Each exits 4 with a message that names the file the test damaged
 * and what to do, never Paimon's hint about snapshot expiration nor a byte of the garbage; the
 * table is left as it was (nothing committed over it, nothing deleted from it), and the way out the
 * demo's message offers ({@code --replace}) works. Directories that are no warehouse are refused
 * before anything runs (exit 2).
 */
class DamagedWarehouseTest {

    /** Written over files: none of it may reach a message. */
    private static final String GARBAGE = "{\"garbage\": ,,, secret-bytes-7f3a";
    private static final String[] DEMO = {"demo", "--rows", "2000", "--keys", "500", "--json"};

    /** A warehouse with the demo table after two commits (snapshots 1 and 2), copied for each test. */
    @TempDir static Path base;

    @TempDir Path tmp;

    private Path warehouse;
    private Path table;

    @BeforeAll
    static void twoCommits() throws Exception {
        for (String seed : new String[] {"1", "2"}) {
            CliRun demo = CliRun.of(args(DEMO, "--warehouse", base.resolve("wh").toString(), "--seed", seed));
            assertThat(demo.exitCode()).as(demo.err()).isZero();
        }
    }

    @BeforeEach
    void aCopy() throws Exception {
        warehouse = tmp.resolve("wh");
        copy(base.resolve("wh"), warehouse);
        table = warehouse.resolve("demo.db").resolve("kv");
    }

    @Test
    void aTruncatedManifestIsNamedByTheDemoAndByCleanAndReplaceIsTheWayOut() throws Exception {
        Path manifest = files(table.resolve("manifest"), "manifest-").stream()
                .filter(p -> !p.getFileName().toString().startsWith("manifest-list-")).findFirst().orElseThrow();
        try (FileChannel channel = FileChannel.open(manifest, StandardOpenOption.WRITE)) {
            channel.truncate(Files.size(manifest) / 2);
        }

        JsonNode report = damaged(CliRun.of(args(DEMO, "--warehouse", warehouse.toString())), manifest);
        assertThat(report.get("error").asText()).contains("its manifest file " + manifest)
                .contains("it is truncated or overwritten").contains("--replace");
        assertThat(report.get("committed").asBoolean()).isFalse();

        JsonNode clean = cleanOf(manifest, "--dry-run");
        assertThat(clean.get("orphanFiles").asLong()).isZero();

        CliRun replaced = CliRun.of(args(DEMO, "--warehouse", warehouse.toString(), "--replace"));
        assertThat(replaced.exitCode()).as(replaced.err()).isZero();
        assertThat(replaced.json().get("verified").asBoolean()).isTrue();
    }

    /**
     * Paimon's own clean takes a missing manifest for an expired one and lists the data files only
     * it references as orphans: a clean with a zero margin would delete the table's rows.
     */
    @Test
    void aMissingManifestIsNamedAndCleanDeletesNothingOfTheTable() throws Exception {
        List<Path> data = files(table, "data-");
        for (Path p : data) {
            Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        }
        Path manifest = files(table.resolve("manifest"), "manifest-").stream()
                .filter(p -> !p.getFileName().toString().startsWith("manifest-list-")).findFirst().orElseThrow();
        Files.delete(manifest);

        cleanOf(manifest, "--older-than", "0s");

        assertThat(files(table, "data-")).containsExactlyInAnyOrderElementsOf(data);
        JsonNode report = damaged(CliRun.of(args(DEMO, "--warehouse", warehouse.toString())), manifest);
        assertThat(report.get("error").asText()).contains("its manifest file " + manifest + " (referenced by snapshot-")
                .contains(" is missing");
    }

    @Test
    void aGarbageLatestSnapshotIsNamedWithoutItsBytes() throws Exception {
        Path snapshot = table.resolve("snapshot").resolve("snapshot-2");
        Files.writeString(snapshot, GARBAGE);

        JsonNode report = damaged(CliRun.of(args(DEMO, "--warehouse", warehouse.toString())), snapshot);
        assertThat(report.get("error").asText()).contains("its snapshot file " + snapshot + " cannot be parsed");
        cleanOf(snapshot, "--dry-run");
    }

    /** Paimon reads only the latest snapshot: a commit would go on over this one in silence. */
    @Test
    void aGarbageOlderSnapshotIsReportedNotCommittedOver() throws Exception {
        Path snapshot = table.resolve("snapshot").resolve("snapshot-1");
        Files.writeString(snapshot, GARBAGE);

        damaged(CliRun.of(args(DEMO, "--warehouse", warehouse.toString())), snapshot);

        assertThat(files(table.resolve("snapshot"), "snapshot-"))
                .as("no commit over it").extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder("snapshot-1", "snapshot-2");
    }

    @Test
    void aDeletedDataFileIsNamedByTheDemoByCleanAndByASqlQuery() throws Exception {
        Path data = files(table, "data-").get(0);
        Files.delete(data);

        JsonNode report = damaged(CliRun.of(args(DEMO, "--warehouse", warehouse.toString())), data);
        assertThat(report.get("error").asText()).contains("its data file " + data).contains(" is missing");

        JsonNode clean = cleanOf(data, "--dry-run");
        assertThat(clean.get("tables").get(0).get("error").asText()).contains("nothing of this table was deleted");

        CliRun query = CliRun.of("sql", "--engine", "flink", "--warehouse", warehouse.toString(), "--json", "-e",
                "SELECT count(*) FROM demo.kv");
        assertThat(query.exitCode()).as(query.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
        String error = query.json().get("error").asText();
        assertThat(error).startsWith("statement 1 failed: SELECT count(*) FROM demo.kv: table demo.kv is damaged: its"
                + " data file " + data).contains("DROP TABLE");
        assertNoHintNorBytes(error);
    }

    /** A statement naming a damaged table is refused before it runs: an insert commits nothing over the damage. */
    @Test
    void anInsertIntoATableWithADeletedDataFileIsRefusedBeforeItRuns() throws Exception {
        Path data = files(table, "data-").get(0);
        Files.delete(data);
        List<String> snapshots = files(table.resolve("snapshot"), "snapshot-").stream().map(p -> p.getFileName().toString()).toList();

        CliRun insert = CliRun.of("sql", "--engine", "flink", "--warehouse", warehouse.toString(), "--json", "-e",
                "INSERT INTO demo.kv VALUES (0, 1, 'after the damage')");

        assertThat(insert.exitCode()).as(insert.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
        assertThat(insert.json().get("error").asText()).contains("table demo.kv is damaged: its data file " + data);
        assertThat(files(table.resolve("snapshot"), "snapshot-")).as("nothing committed over the damage")
                .extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrderElementsOf(snapshots);
    }

    @Test
    void aGarbageSchemaIsNamedAndReplaceIsTheWayOut() throws Exception {
        Path schema = table.resolve("schema").resolve("schema-0");
        Files.writeString(schema, GARBAGE);

        JsonNode report = damaged(CliRun.of(args(DEMO, "--warehouse", warehouse.toString())), schema);
        assertThat(report.get("error").asText()).contains("its schema file " + schema + " cannot be parsed");
        cleanOf(schema, "--dry-run");

        CliRun replaced = CliRun.of(args(DEMO, "--warehouse", warehouse.toString(), "--replace"));
        assertThat(replaced.exitCode()).as(replaced.err()).isZero();
        assertThat(replaced.json().get("verified").asBoolean()).isTrue();
    }

    @Test
    void aWarehouseThatIsAFileOrLiesUnderOneIsABadArgument() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        for (Path bad : List.of(file, file.resolve("wh"))) {
            String why = bad.equals(file) ? "'" + file + "' is a file, not a directory"
                    : "'" + bad + "' lies under '" + file + "', which is a file, not a directory";
            for (CliRun run : List.of(
                    CliRun.of(args(DEMO, "--warehouse", bad.toString())),
                    CliRun.of("sql", "--engine", "flink", "--warehouse", bad.toString(), "-e", "SHOW TABLES"),
                    CliRun.of("clean", "--warehouse", bad.toString()))) {
                assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_USAGE);
                assertThat(run.err()).contains("Invalid value for option '--warehouse': " + why);
                assertThat(run.out()).isEmpty();
            }
        }
        assertThat(Files.readString(file)).isEqualTo("x");
    }

    @Test
    void cleanRefusesADirectoryThatIsNoWarehouse() throws Exception {
        Path other = Files.createDirectories(tmp.resolve("not-a-warehouse").resolve("docs"));
        Files.writeString(other.resolveSibling("notes.txt"), "x");
        assertRefused(other.getParent(), "is not a Paimon warehouse: it holds no database directory (NAME.db)");
        assertRefused(table, "is a table's directory (it holds schema/), not a warehouse; its warehouse is '"
                + warehouse + "'");
        assertRefused(table.getParent(), "is a database's directory, not a warehouse; its warehouse is '" + warehouse + "'");

        CliRun empty = CliRun.of("clean", "--warehouse", Files.createDirectory(tmp.resolve("empty")).toString(), "--json");
        assertThat(empty.exitCode()).as(empty.err()).isZero();
        assertThat(empty.json().get("tables")).isEmpty();
    }

    private static void assertRefused(Path dir, String why) {
        CliRun run = CliRun.of("clean", "--warehouse", dir.toString(), "--json");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'" + dir + "' " + why);
        assertThat(run.out()).isEmpty();
    }

    /** The demo's report of a damaged table: exit 4, the file named, no hint, no garbage. */
    private static JsonNode damaged(CliRun run, Path file) throws Exception {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
        JsonNode report = run.json();
        assertThat(report.get("errorKind").asText()).isEqualTo("environment");
        String error = report.get("error").asText();
        assertThat(error).startsWith("table demo.kv is damaged: its ").contains(" " + file + " ")
                .endsWith("; restore the file from a backup, or run again with --replace to drop the table and create"
                        + " it anew (its rows are lost)");
        assertNoHintNorBytes(error);
        assertThat(run.err()).contains("error: " + error);
        return report;
    }

    /** {@code clean} on the damaged warehouse: exit 4, the table reported damaged with the file, not cleaned. */
    private JsonNode cleanOf(Path file, String... options) throws Exception {
        CliRun run = CliRun.of(args(new String[] {"clean", "--warehouse", warehouse.toString(), "--json"}, options));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
        JsonNode json = run.json();
        JsonNode t = json.get("tables").get(0);
        assertThat(t.get("damaged").asBoolean()).isTrue();
        assertThat(t.get("damagedFile").asText()).isEqualTo(file.toString());
        assertThat(t.get("deleted").asBoolean()).isFalse();
        assertThat(t.get("error").asText()).startsWith("table demo.kv is damaged: its ")
                .endsWith("nothing of this table was deleted; restore the file from a backup, or drop the table and"
                        + " write it again");
        assertNoHintNorBytes(t.get("error").asText());
        assertThat(json.get("error").asText()).isEqualTo("demo.kv: " + t.get("error").asText());
        return json;
    }

    private static void assertNoHintNorBytes(String message) {
        assertThat(message).doesNotContain("expire").doesNotContain("secret-bytes").doesNotContain("garbage");
    }

    private static List<Path> files(Path dir, String prefix) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().startsWith(prefix)).sorted()
                    .toList();
        }
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.naturalOrder())::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static String[] args(String[] base, String... more) {
        return Stream.concat(Stream.of(base), Stream.of(more)).toArray(String[]::new);
    }
}
