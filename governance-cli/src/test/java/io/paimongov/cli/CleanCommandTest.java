package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.TableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code clean} command on a warehouse the demo wrote, with orphan files planted the way a
 * crashed write leaves them: copies of a committed data file and of a manifest under new names that
 * no snapshot references, some made two days old. What the command must list or delete is what was
 * planted (the model), and what is left unreferenced afterwards is counted by {@link TableFiles}
 * from Paimon's readers, not by the command.
 */
class CleanCommandTest {

    @TempDir Path tmp;

    private Path warehouse;
    private FileStoreTable table;
    private Map<String, String> content;
    /** Planted orphans, relative to the table directory: two days old, and new. */
    private final Set<String> old = new TreeSet<>();
    private final Set<String> young = new TreeSet<>();
    /** Their sizes, taken when planted. */
    private final Map<String, Long> sizes = new TreeMap<>();

    @BeforeEach
    void aDemoTableWithPlantedOrphans() throws Exception {
        warehouse = tmp.resolve("wh");
        CliRun demo = CliRun.of("demo", "--rows", "3000", "--keys", "500", "--buckets", "2", "--budget", "8m",
                "--warehouse", warehouse.toString(), "--json");
        assertThat(demo.exitCode()).as(demo.err()).isZero();
        table = table(warehouse, "demo", "kv");
        content = content(table);
        assertThat(TableFiles.unreferenced(table)).as("files the demo's committed write left").isEmpty();
        Path dir = Path.of(table.location().toUri().getPath());
        Path dataFile = firstFile(dir, "data-");
        Path manifest = firstFile(dir.resolve("manifest"), "manifest-");
        old.add(plant(dir, dataFile, "data-", ".parquet", Duration.ofDays(2)));
        old.add(plant(dir, manifest, "manifest-", "-0", Duration.ofDays(2)));
        young.add(plant(dir, dataFile, "data-", ".parquet", Duration.ZERO));
        young.add(plant(dir, manifest, "manifest-", "-0", Duration.ZERO));
        assertThat(TableFiles.unreferenced(table)).as("the planted orphans").isEqualTo(union(old, young));
        for (String f : union(old, young)) {
            sizes.put(f, Files.size(dir.resolve(f)));
        }
    }

    @Test
    void aDryRunListsOnlyTheFilesOlderThanTheMarginAndDeletesNothing() throws Exception {
        CliRun run = CliRun.of("clean", "--warehouse", warehouse.toString(), "--older-than", "1d", "--dry-run", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        JsonNode json = run.json();
        assertThat(fieldNames(json)).containsExactly(
                "warehouse", "dryRun", "olderThanMillis", "tables", "orphanFiles", "orphanBytes", "error");
        assertThat(json.get("dryRun").asBoolean()).isTrue();
        assertThat(json.get("olderThanMillis").asLong()).isEqualTo(Duration.ofDays(1).toMillis());
        assertThat(json.get("orphanFiles").asLong()).isEqualTo(old.size());
        JsonNode t = json.get("tables").get(0);
        assertThat(json.get("tables")).hasSize(1);
        assertThat(t.get("table").asText()).isEqualTo("demo.kv");
        assertThat(t.get("orphanFiles").asLong()).isEqualTo(old.size());
        assertThat(t.get("orphanBytes").asLong()).isEqualTo(size(old));
        assertThat(t.get("deleted").asBoolean()).isFalse();
        assertThat(relative(t.get("paths"))).isEqualTo(old);
        assertThat(TableFiles.unreferenced(table)).as("a dry run deletes nothing").isEqualTo(union(old, young));
    }

    @Test
    void aZeroMarginDeletesEveryOrphanAndLeavesTheTableAsItWas() throws Exception {
        CliRun run = CliRun.of("clean", "--warehouse", warehouse.toString(), "--older-than", "0s", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode t = run.json().get("tables").get(0);
        assertThat(t.get("deleted").asBoolean()).isTrue();
        assertThat(relative(t.get("paths"))).isEqualTo(union(old, young));
        assertThat(run.json().get("orphanBytes").asLong()).isEqualTo(size(old) + size(young));
        assertThat(TableFiles.unreferenced(table)).isEmpty();
        assertThat(content(table(warehouse, "demo", "kv"))).isEqualTo(content);
    }

    @Test
    void theDefaultMarginIsOneDayAndTheTextSaysWhatWasDeleted() throws Exception {
        CliRun run = CliRun.of("clean", "--warehouse", warehouse.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("files older than 1d").contains("demo.kv").contains("deleted")
                .contains(old.size() + " orphan files");
        assertThat(TableFiles.unreferenced(table)).isEqualTo(young);
    }

    @Test
    void badArgumentsAreUsageErrorsNamingTheOptionWithNothingOnStdout() {
        CliRun missing = CliRun.of("clean", "--json");
        assertThat(missing.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(missing.err()).contains("--warehouse");
        assertThat(missing.out()).isEmpty();

        CliRun noDir = CliRun.of("clean", "--warehouse", tmp.resolve("nope").toString(), "--json");
        assertThat(noDir.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(noDir.err()).contains("'--warehouse'").contains("does not exist");
        assertThat(noDir.out()).isEmpty();

        CliRun badDuration = CliRun.of("clean", "--warehouse", warehouse.toString(), "--older-than", "1 day");
        assertThat(badDuration.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(badDuration.err()).contains("'--older-than'").contains("'1 day' is not a duration");
        assertThat(badDuration.out()).isEmpty();
    }

    /** A file that cannot be deleted is reported, not counted as removed: exit code 4, the path named. */
    @Test
    void anOrphanThatCannotBeDeletedIsAnEnvironmentError() throws Exception {
        Path dir = Path.of(table.location().toUri().getPath());
        Path stuck = dir.resolve(old.stream().filter(f -> f.contains("data-")).findFirst().orElseThrow());
        Undeletable guard = Undeletable.make(stuck);
        try {
            CliRun run = CliRun.of("clean", "--warehouse", warehouse.toString(), "--older-than", "0s", "--json");

            assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
            JsonNode t = run.json().get("tables").get(0);
            assertThat(t.get("deleted").asBoolean()).isFalse();
            assertThat(relative(t.get("notDeleted"))).containsExactly(dir.relativize(stuck).toString());
            assertThat(t.get("error").asText()).contains("could not be deleted").contains(stuck.getFileName().toString());
            assertThat(run.err()).contains("error: demo.kv: 1 orphan files could not be deleted");
            assertThat(TableFiles.unreferenced(table)).containsExactly(dir.relativize(stuck).toString());
        } finally {
            guard.undo();
        }
    }

    /** Makes a file undeletable: a read-only directory for a normal user, {@code chattr +i} for root. */
    private record Undeletable(Path file, boolean root) {
        static Undeletable make(Path file) throws Exception {
            boolean root = "root".equals(System.getProperty("user.name"));
            if (!root) {
                Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("r-x------"));
                return new Undeletable(file, false);
            }
            boolean set = new ProcessBuilder("chattr", "+i", file.toString()).inheritIO().start().waitFor() == 0;
            assumeThat(set).as("root deletes anything unless chattr +i works here").isTrue();
            return new Undeletable(file, true);
        }

        void undo() throws Exception {
            if (root) {
                new ProcessBuilder("chattr", "-i", file.toString()).inheritIO().start().waitFor();
            } else {
                Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwx------"));
            }
        }
    }

    /** A copy of {@code source} under a new Paimon-like name in the same directory, {@code age} old. */
    private static String plant(Path tableDir, Path source, String prefix, String suffix, Duration age) throws Exception {
        Path copy = source.resolveSibling(prefix + UUID.randomUUID() + suffix);
        Files.copy(source, copy);
        Files.setLastModifiedTime(copy, FileTime.from(Instant.now().minus(age)));
        return tableDir.relativize(copy).toString();
    }

    private static Path firstFile(Path dir, String prefix) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().startsWith(prefix))
                    .sorted().findFirst().orElseThrow();
        }
    }

    private long size(Set<String> files) {
        return files.stream().mapToLong(sizes::get).sum();
    }

    private Set<String> relative(JsonNode paths) {
        Path dir = Path.of(table.location().toUri().getPath());
        Set<String> out = new TreeSet<>();
        paths.forEach(p -> out.add(dir.relativize(Path.of(java.net.URI.create(p.asText()).getPath())).toString()));
        return out;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.addAll(b);
        return out;
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }

    static FileStoreTable table(Path warehouse, String database, String name) throws Exception {
        CatalogContext context = CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString()));
        try (Catalog catalog = CatalogFactory.createCatalog(context)) {
            return (FileStoreTable) catalog.getTable(Identifier.create(database, name));
        }
    }

    /** The table's rows as "p,k" -> v, read by a fresh reader. */
    static Map<String, String> content(FileStoreTable table) throws Exception {
        Map<String, String> rows = new TreeMap<>();
        DemoTable.forEachRow(table, row -> rows.put(row.getInt(0) + "," + row.getInt(1),
                row.isNullAt(2) ? null : row.getString(2).toString()));
        return rows;
    }
}
