package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM and SIGINT sent to a running {@code demo} from the outside, as an operator or a scheduler
 * sends them: the CLI runs as a child JVM, is stopped once its write has spilled (so the write is in
 * flight and its spill scope holds files), and must exit with 128 + the signal, leave nothing in
 * its {@code java.io.tmpdir} (the temporary warehouse) nor under {@code --spill-dir} (the spill
 * scope), and keep stdout either empty or exactly one JSON report that says a signal stopped it.
 */
class ShutdownSignalTest {

    /** A write far longer than the test: it only ends by the signal. */
    private static final String[] ENDLESS_SPILLING_DEMO = {
        "demo", "--rows", "200000000", "--keys", "20000", "--budget", "2m", "--page-size", "16k", "--json"
    };
    /** Generous: the child JVM starts, creates the table and fills 2 MiB on a loaded machine. */
    private static final long SPILL_WITHIN_SECONDS = 120;
    /** The CLI's own bound plus JVM exit, with room for a loaded machine. */
    private static final long EXIT_WITHIN_SECONDS = ShutdownCleanup.WAIT_MILLIS / 1000 + 60;

    @TempDir Path tmp;

    @Test
    void sigtermCancelsTheWriteRemovesTheTemporaryWarehouseAndTheSpillScopeAndExits143() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(), args("--spill-dir", spill.toString()))) {
            awaitSpillFile(cli, spill);
            assertThat(entries(childTmp)).as("the temporary warehouse while the demo writes").isNotEmpty();

            cli.sigterm();

            assertThat(cli.exitCode(EXIT_WITHIN_SECONDS)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_SIGTERM);
            assertThat(entries(childTmp)).as("left in the child's java.io.tmpdir").isEmpty();
            assertThat(entries(spill)).as("spill scopes left under --spill-dir").isEmpty();
            assertReportSaysStoppedBySignal(cli.out());
        }
    }

    @Test
    void sigintOnAGivenWarehouseAbortsTheUncommittedFilesKeepsTheWarehouseAndExits130() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        Path warehouse = tmp.resolve("wh");
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(),
                args("--spill-dir", spill.toString(), "--warehouse", warehouse.toString()))) {
            awaitSpillFile(cli, spill);

            cli.sigint();

            assertThat(cli.exitCode(EXIT_WITHIN_SECONDS)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_SIGINT);
            assertThat(entries(childTmp)).as("left in the child's java.io.tmpdir").isEmpty();
            assertThat(entries(spill)).as("spill scopes left under --spill-dir").isEmpty();
            assertThat(warehouse).as("a warehouse the user gave is kept").isDirectory();
            assertThat(dataFiles(warehouse)).as("uncommitted data files left in the table").isEmpty();
            assertReportSaysStoppedBySignal(cli.out());
        }
    }

    /** {@code bench}: the writes run inside the harness; the temporary work directory is removed, no report is printed. */
    @Test
    void sigtermStopsABenchAndRemovesItsWorkDirectory() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(), "bench", "--quick", "--json")) {
            awaitFileUnder(cli, childTmp, "paimon-gov-bench-");

            cli.sigterm();

            assertThat(cli.exitCode(EXIT_WITHIN_SECONDS)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_SIGTERM);
            assertThat(entries(childTmp)).as("left in the child's java.io.tmpdir").isEmpty();
            assertThat(cli.out()).as("stdout after a signal").isEmpty();
        }
    }

    /**
     * {@code bench scale}: the work directory its child JVMs write in is removed (that the children
     * are stopped too is {@link ShutdownCleanupTest}'s, with a child that would outlive the run).
     */
    @Test
    void sigintStopsABenchScaleWithItsChildJvmsAndRemovesItsWorkDirectory() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(), "bench", "scale", "--quick", "--json")) {
            awaitFileUnder(cli, childTmp, "paimon-gov-scale-");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SPILL_WITHIN_SECONDS);
            while (cli.descendants().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(cli.descendants()).as("child JVMs of bench scale").isNotEmpty();

            cli.sigint();

            assertThat(cli.exitCode(EXIT_WITHIN_SECONDS)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_SIGINT);
            assertThat(entries(childTmp)).as("left in the child's java.io.tmpdir").isEmpty();
            assertThat(cli.out()).as("stdout after a signal").isEmpty();
        }
    }

    @Test
    void sigkillLeavesOnlyTheProcessTempScopeWhichTheNextCommandRemoves() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        long pid;
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(), args("--spill-dir", spill.toString()))) {
            pid = cli.pid();
            awaitSpillFile(cli, spill);

            cli.sigkill();
        }

        // What the libraries extracted (native code) and the temporary warehouse are all in one
        // directory leased to the killed process; nothing lies loose in the temp directory.
        assertThat(entries(childTmp)).singleElement()
                .satisfies(scope -> assertThat(scope.getFileName().toString()).startsWith("paimon-gov-" + pid + "-"));
        try (Stream<Path> walk = Files.walk(childTmp)) {
            assertThat(walk.map(p -> p.getFileName().toString()))
                    .as("the temporary warehouse, inside the scope").anyMatch(name -> name.startsWith("paimon-governance-demo-"));
        }
        Path nextLogs = Files.createDirectory(tmp.resolve("next-logs"));
        try (CliProcess next = CliProcess.start(childTmp, nextLogs, List.of(), "providers")) {
            assertThat(next.exitCode(EXIT_WITHIN_SECONDS)).as(next.err()).isZero();
        }
        assertThat(entries(childTmp)).as("left in java.io.tmpdir after the next command").isEmpty();
    }

    @Test
    void aKeptTemporaryWarehouseIsTheOnlyThingLeftInTheTempDirectory() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(), "demo", "--rows", "2000", "--keep", "--json")) {
            assertThat(cli.exitCode(EXIT_WITHIN_SECONDS)).as(cli.err()).isZero();
            Path warehouse = Path.of(Json.parse(cli.out()).get("warehouse").asText());
            assertThat(entries(childTmp)).containsExactly(warehouse);
        }
    }

    /** Whether a directory on {@code relative}'s way (the file itself not counted) starts with {@code prefix}. */
    private static boolean underPrefix(Path relative, String prefix) {
        for (int i = 0; i < relative.getNameCount() - 1; i++) {
            if (relative.getName(i).toString().startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits until a directory under {@code dir} (the CLI's process temp scope holds the run's work
     * directories) whose name starts with {@code prefix} holds a file: the run is writing.
     */
    private static void awaitFileUnder(CliProcess cli, Path dir, String prefix) throws Exception {
        awaitFile(cli, dir, relative -> underPrefix(relative, prefix), "a file under " + dir + "/" + prefix + "*");
    }

    /** Waits until a regular file (a spill run) exists under {@code spill}: the write is in flight. */
    private static void awaitSpillFile(CliProcess cli, Path spill) throws Exception {
        awaitFile(cli, spill, relative -> true, "a spill file under " + spill);
    }

    /** Waits until a regular file under {@code dir} whose path relative to it matches {@code wanted} exists. */
    private static void awaitFile(CliProcess cli, Path dir, java.util.function.Predicate<Path> wanted, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SPILL_WITHIN_SECONDS);
        while (System.nanoTime() < deadline) {
            if (!cli.isAlive()) {
                throw new AssertionError("the CLI ended before " + what + " appeared, exit " + cli.exitCode(1) + ":\n" + cli.err());
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                if (walk.anyMatch(p -> Files.isRegularFile(p) && wanted.test(dir.relativize(p)))) {
                    return;
                }
            } catch (IOException | java.io.UncheckedIOException racingWithTheWriter) {
                // A file was created or deleted while listed: look again.
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no " + what + " within " + SPILL_WITHIN_SECONDS + " s; stderr:\n" + cli.err());
    }

    /**
     * Stdout is empty (the run did not end within the CLI's bound, and the shutdown took it over) or
     * exactly one JSON object, parsed strictly, whose error says a signal stopped the write.
     */
    private static void assertReportSaysStoppedBySignal(String out) throws Exception {
        if (out.isEmpty()) {
            return;
        }
        JsonNode json = Json.parse(out);
        assertThat(json.get("errorKind").asText()).isEqualTo("signal");
        assertThat(json.get("error").asText()).contains("stopped by a signal");
        assertThat(json.get("committed").asBoolean()).isFalse();
        assertThat(json.get("warehouse").isNull() || Files.isDirectory(Path.of(json.get("warehouse").asText())))
                .as("the report's warehouse exists when it is named").isTrue();
    }

    private static List<Path> entries(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.toList();
        }
    }

    private static List<Path> dataFiles(Path warehouse) throws IOException {
        try (Stream<Path> walk = Files.walk(warehouse)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> p.getParent().getFileName().toString().startsWith("bucket-"))
                    .toList();
        }
    }

    private static String[] args(String... more) {
        return Stream.concat(Stream.of(ENDLESS_SPILLING_DEMO), Stream.of(more)).toArray(String[]::new);
    }
}
