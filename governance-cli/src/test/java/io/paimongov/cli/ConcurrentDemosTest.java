package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import io.paimongov.fixtures.TableFiles;
import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two demos writing the same buckets of one warehouse at once. The first is a child JVM stopped
 * (SIGSTOP) at a phase of its run ({@code prepareCommit}: its governed write open and written;
 * {@code write}: an engine's job about to start), with the table open; the second runs whole in
 * between; then the first is let go (SIGCONT). Paimon allows one writer per bucket, so one of them must fail,
 * typed (exit code 4, naming the other writer), and neither may report a table it did not check as
 * verified: the one that finished first verified the table as it left it, and nothing was committed
 * over it by the refused one.
 */
class ConcurrentDemosTest {

    private static final String[] DEMO = {"demo", "--keys", "2000", "--json"};

    @TempDir Path tmp;

    /** The stopped governed write's commit finds the other's snapshot in its buckets and publishes nothing. */
    @Test
    void theLaterOfTwoGovernedDemosIsRefusedAndTheTableIsTheOthers() throws Exception {
        Path warehouse = tmp.resolve("wh");
        try (CliProcess first = stoppedAt("prepareCommit", warehouse, "heap")) {
            CliRun second = CliRun.of(args(warehouse, "--rows", "20000", "--seed", "7"));
            assertThat(second.exitCode()).as(second.err()).isZero();
            assertThat(second.json().get("verified").asBoolean()).isTrue();
            long afterSecond = table(warehouse).snapshotManager().latestSnapshotId();

            JsonNode refused = resumed(first);

            assertThat(refused.get("error").asText()).startsWith("another writer (commit user ")
                    .contains("into buckets of demo.kv").contains("was not published");
            assertThat(refused.get("committed").asBoolean()).isFalse();
            FileStoreTable table = table(warehouse);
            assertThat(table.snapshotManager().latestSnapshotId()).as("nothing committed over it").isEqualTo(afterSecond);
            assertThat(commitUsers(table)).hasSize(1);
            assertThat(TableFiles.unreferenced(table)).as("files of the refused commit").isEmpty();
        }
    }

    /**
     * An engine's committer makes no such check: the stopped Flink demo commits after the other,
     * and its read-back finds two writers' snapshots since it opened the table.
     */
    @Test
    void aDemoWhoseTableAnotherWriterCommittedToMeanwhileDoesNotClaimItVerified() throws Exception {
        Path warehouse = tmp.resolve("wh");
        CliRun setup = CliRun.of(args(warehouse, "--rows", "100"));
        assertThat(setup.exitCode()).as(setup.err()).isZero();
        try (CliProcess first = stoppedAt("write", warehouse, "flink")) {
            CliRun second = CliRun.of(args(warehouse, "--rows", "20000", "--seed", "7"));
            assertThat(second.exitCode()).as(second.err()).isZero();
            assertThat(second.json().get("verified").asBoolean()).isTrue();

            JsonNode unchecked = resumed(first);

            assertThat(unchecked.get("error").asText()).startsWith("another writer committed to demo.kv while this run"
                    + " had it open (snapshot ").contains("it was not checked");
            assertThat(unchecked.get("verified").asBoolean()).isFalse();
        }
    }

    /** A demo of 20,000 rows in a child JVM with the phase trace, stopped once it printed {@code phase <phase>}. */
    private CliProcess stoppedAt(String phase, Path warehouse, String provider) throws Exception {
        Path childTmp = Files.createDirectories(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        String[] args = args(warehouse, "--rows", "20000", "--provider", provider);
        CliProcess cli = CliProcess.start(childTmp, logs, List.of("-Dgovernance.cli.trace-phases=true"), args);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!cli.err().contains("phase " + phase)) {
            assertThat(cli.isAlive()).as("the demo ended before " + phase + ": " + cli.err()).isTrue();
            assertThat(System.nanoTime()).as("phase " + phase + " within 180 s: " + cli.err()).isLessThan(deadline);
            Thread.sleep(5);
        }
        signal("STOP", cli.pid());
        return cli;
    }

    /** Lets the stopped demo go on; its report, exit code 4 and an environment error. */
    private static JsonNode resumed(CliProcess cli) throws Exception {
        signal("CONT", cli.pid());
        assertThat(cli.exitCode(300)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
        JsonNode report = Json.parse(cli.out());
        assertThat(report.get("errorKind").asText()).isEqualTo("environment");
        assertThat(report.get("verified").asBoolean()).isFalse();
        return report;
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + signal).isTrue();
    }

    private static Set<String> commitUsers(FileStoreTable table) throws Exception {
        Set<String> users = new TreeSet<>();
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            users.add(s.commitUser());
        }
        return users;
    }

    private static FileStoreTable table(Path warehouse) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            return (FileStoreTable) catalog.getTable(Identifier.create("demo", "kv"));
        }
    }

    private static String[] args(Path warehouse, String... more) {
        List<String> all = new java.util.ArrayList<>(List.of(DEMO));
        all.add("--warehouse");
        all.add(warehouse.toString());
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }
}
