package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo on a broken environment, as an operator meets it: a read-only warehouse, a full spill
 * disk and a full warehouse disk (small tmpfs mounts: the kernel's own EROFS and ENOSPC; skipped
 * where {@code mount} is not permitted, the diagnosis itself is covered by {@link RootCauseTest}),
 * a forbidden warehouse, and a JVM too small for the budget. Each exits 4 with a report whose
 * {@code error} names the root cause and the path or the numbers, never only a wrapper's message.
 */
class DemoEnvironmentErrorsTest {

    private static final String[] SPILLING = {
        "demo", "--rows", "200000", "--keys", "20000", "--budget", "2m", "--page-size", "16k", "--json"
    };

    @TempDir Path tmp;

    @Test
    void aReadOnlyWarehouseExits4NamingThePath() throws Exception {
        Path mountPoint = Files.createDirectory(tmp.resolve("ro"));
        try (TmpfsMount ro = TmpfsMount.mount(mountPoint, "ro,size=1m")) {
            assumeTrue(ro != null, "mount is not permitted here");
            Path warehouse = mountPoint.resolve("wh");

            CliRun run = CliRun.of("demo", "--rows", "1000", "--warehouse", warehouse.toString(), "--json");

            assertEnvironmentError(run, "read-only file system: cannot write " + warehouse);
        }
    }

    /** sysfs refuses new directories to everyone, so this runs wherever there is a /sys, mounts or not. */
    @Test
    void aForbiddenWarehouseExits4NamingThePath() throws Exception {
        Path forbidden = Path.of("/sys/paimon-governance-demo-test");
        assumeTrue(Files.isDirectory(Path.of("/sys/kernel")) && !Files.exists(forbidden), "needs Linux sysfs");

        CliRun run = CliRun.of("demo", "--rows", "1000", "--warehouse", forbidden.toString(), "--json");

        assertEnvironmentError(run, "permission denied: cannot write " + forbidden);
    }

    @Test
    void aFullSpillDiskExits4NamingTheDirectoryAndItsFreeBytesWhenTheWriteFailed() throws Exception {
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        try (TmpfsMount full = TmpfsMount.mount(spill, "size=1m")) {
            assumeTrue(full != null, "mount is not permitted here");

            JsonNode json = runChild("no space left on device while writing under " + spill + " (",
                    args(SPILLING, "--spill-dir", spill.toString()));

            assertFreeBytesWhenTheWriteFailed(json.get("error").asText(), spill);
            assertThat(json.get("spillFilesLeft").asLong()).isZero();
            assertThat(entries(spill)).as("spill scopes left on the full disk").isEmpty();
        }
    }

    @Test
    void aFullWarehouseDiskExits4NamingTheWarehouseAndItsFreeBytesWhenTheWriteFailed() throws Exception {
        Path disk = Files.createDirectory(tmp.resolve("disk"));
        try (TmpfsMount full = TmpfsMount.mount(disk, "size=1m")) {
            assumeTrue(full != null, "mount is not permitted here");
            Path warehouse = disk.resolve("wh");

            JsonNode json = runChild("no space left on device while writing under " + warehouse + " (",
                    "demo", "--rows", "5000", "--keys", "5000", "--value-bytes", "1000", "--warehouse", warehouse.toString(),
                    "--json");

            assertFreeBytesWhenTheWriteFailed(json.get("error").asText(), disk);
            assertThat(json.get("committed").asBoolean()).isFalse();
        }
    }

    /**
     * A JVM of 96 MiB asked for a 32 MiB budget and 2,000 rows of 1 MiB: the heap provider accepts
     * the budget (it fits the heap with room for a loaded JVM's live heap when the write opens),
     * and the rest of the job does not fit beside it. The demo catches the
     * OutOfMemoryError, closes the write and still reports, naming the budget and the heap.
     */
    @Test
    void aJvmTooSmallForTheJobExits4WithTheBudgetAndTheHeap() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of("-Xmx96m"),
                "demo", "--rows", "2000", "--budget", "32m", "--value-bytes", "1048576", "--json")) {
            int exit = cli.exitCode(300);

            assertThat(exit).as(cli.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
            JsonNode json = Json.parse(cli.out());
            assertThat(json.get("errorKind").asText()).isEqualTo("environment");
            String error = json.get("error").asText();
            assertThat(error).startsWith("out of memory (").contains("a budget of " + (32L << 20) + " bytes");
            Matcher heap = Pattern.compile("maximum heap is (\\d+) bytes").matcher(error);
            assertThat(heap.find()).as(error).isTrue();
            assertThat(Long.parseLong(heap.group(1))).isBetween(32L << 20, 96L << 20);
            assertThat(json.get("reservedAfterClose").asLong()).isZero();
            assertThat(entries(childTmp)).as("left in the child's java.io.tmpdir").isEmpty();
        }
    }

    /**
     * A 72 MiB budget in a 96 MiB heap with 512 writers: the budget fits the heap, not beside what
     * the JVM holds when the write opens (its classes, the demo's model) and what G1 keeps free.
     * Refused at open (exit code 2) naming the live heap it measured then; a budget within what the
     * message says is free runs to the end in the same heap. Before, it was accepted against a
     * collection from before the demo built its model, and ran out of heap 554,371 rows in.
     */
    @Test
    void aBudgetThatLeavesTooLittleHeapBesideWhatTheJvmHoldsIsRefusedAtOpenNamingTheLiveHeap() throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        long room;
        try (CliProcess cli = CliProcess.start(childTmp, Files.createDirectory(tmp.resolve("logs")), List.of("-Xmx96m"),
                "demo", "--budget", "72m", "--partitions", "2", "--buckets", "256", "--rows", "300000", "--json")) {
            assertThat(cli.exitCode(300)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_USAGE);
            JsonNode json = Json.parse(cli.out());
            assertThat(json.get("errorKind").asText()).isEqualTo("usage");
            assertThat(json.get("rowsWritten").asLong()).isZero();
            String error = json.get("error").asText();
            Matcher m = Pattern.compile("'governance.memory.budget' = " + (72L << 20) + " bytes is larger than the heap can"
                    + " give: the JVM's maximum heap is (\\d+) bytes \\(-Xmx\\), (\\d+) of them live when the write opened"
                    + " \\(after a collection\\) and (\\d+) kept free by the collector \\(G1ReservePercent\\), so at most"
                    + " (\\d+) bytes are free beside what the JVM holds").matcher(error);
            assertThat(m.find()).as(error).isTrue();
            long max = Long.parseLong(m.group(1));
            assertThat(max).isBetween(64L << 20, 96L << 20);
            assertThat(Long.parseLong(m.group(2))).as("the live heap when the write opened").isPositive();
            room = Long.parseLong(m.group(4));
            assertThat(room).isEqualTo(max - Long.parseLong(m.group(2)) - Long.parseLong(m.group(3)));
        }
        // What the message says is free holds a budget that runs to the end in the same heap.
        long budget = room * 9 / 10;
        try (CliProcess cli = CliProcess.start(childTmp, Files.createDirectories(tmp.resolve("logs2")), List.of("-Xmx96m"),
                "demo", "--budget", Long.toString(budget), "--partitions", "2", "--buckets", "256", "--rows", "300000",
                "--json")) {
            assertThat(cli.exitCode(300)).as(cli.err()).isZero();
            JsonNode json = Json.parse(cli.out());
            assertThat(json.get("verified").asBoolean()).isTrue();
            assertThat(json.get("budgetBytes").asLong()).isEqualTo(budget);
        }
    }

    private static JsonNode assertEnvironmentError(CliRun run, String errorStart) throws Exception {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
        JsonNode json = run.json();
        assertThat(json.get("errorKind").asText()).isEqualTo("environment");
        assertThat(json.get("error").asText()).startsWith(errorStart);
        assertThat(run.err()).contains("error: " + errorStart);
        return json;
    }

    /**
     * The free bytes named for {@code dir} are those of the full disk, read when the write failed:
     * less than half of what the 1 MiB tmpfs has free once the run ended and removed its files, as
     * the test reads it itself (the run's cleanup freed the disk again; a number read after it
     * would explain nothing). The number of "now" follows.
     */
    private static void assertFreeBytesWhenTheWriteFailed(String error, Path tmpfs) throws Exception {
        Matcher m = Pattern.compile(" \\((\\d+) bytes free on its file system when the write failed, (\\d+) now\\)")
                .matcher(error);
        assertThat(m.find()).as(error).isTrue();
        long afterTheRun = Files.getFileStore(tmpfs).getUsableSpace();
        assertThat(afterTheRun).as("free on the tmpfs after the run").isGreaterThan(1L << 19);
        assertThat(Long.parseLong(m.group(1))).as(error).isLessThan(afterTheRun / 2);
        assertThat(Long.parseLong(m.group(2))).as(error).isGreaterThan(1L << 19);
    }

    /**
     * Runs {@code args} in a child JVM, as an operator does (the tmpfs can be unmounted once it
     * ended, whatever it held open), and checks the environment error.
     */
    private JsonNode runChild(String errorStart, String... args) throws Exception {
        Path childTmp = Files.createDirectory(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectory(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(childTmp, logs, List.of(), args)) {
            assertThat(cli.exitCode(300)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_ENVIRONMENT);
            JsonNode json = Json.parse(cli.out());
            assertThat(json.get("errorKind").asText()).isEqualTo("environment");
            assertThat(json.get("error").asText()).startsWith(errorStart);
            assertThat(cli.err()).contains("error: " + errorStart);
            assertThat(entries(childTmp)).as("left in the child's java.io.tmpdir").isEmpty();
            return json;
        }
    }

    private static List<Path> entries(Path dir) throws Exception {
        try (Stream<Path> list = Files.list(dir)) {
            return list.toList();
        }
    }

    private static String[] args(String[] base, String... more) {
        return Stream.concat(Stream.of(base), Stream.of(more)).toArray(String[]::new);
    }
}
