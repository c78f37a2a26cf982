package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code demo} command run in-process on small jobs: the JSON contract of docs/cli.md, a
 * spilling write that verifies and leaves nothing behind, a cancel from another thread that commits
 * nothing, and bad arguments that name the option.
 */
class DemoCommandTest {

    /** The keys docs/cli.md promises, in order. */
    static final List<String> KEYS =
            List.of(
                    "provider", "table", "format", "rows", "keys", "partitions", "buckets", "valueBytes", "seed",
                    "cancelAfterRows", "budgetBytes", "pageSize", "rowsWritten", "committed", "cancelled",
                    "expectedRows", "rowsReadBack", "verified", "mismatch", "writes", "peakReservedBytes",
                    "reservedAfterClose", "engineUsedAfterClose", "spillCount", "spillFiles", "spillBytes",
                    "spillFilesLeft", "outputFiles", "outputBytes", "flushCount", "writeMillis", "elapsedMillis",
                    "warehouse", "error", "timeline", "errorKind");

    /** Small enough to run in a few seconds, small enough a budget to spill. */
    static final String[] SMALL_SPILLING_JOB = {
        "demo", "--rows", "40000", "--keys", "4000", "--buckets", "2", "--budget", "3m", "--page-size", "16k"
    };

    @TempDir Path tmp;

    @Test
    void jsonReportOfASpillingWriteIsOneObjectWithEveryKeyAndVerifies() throws Exception {
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        CliRun run = CliRun.of(args(SMALL_SPILLING_JOB, "--json", "--spill-dir", spill.toString()));

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        JsonNode json = run.json();
        assertThat(fieldNames(json)).containsExactlyElementsOf(KEYS);
        assertThat(json.get("verified").asBoolean()).isTrue();
        assertThat(json.get("committed").asBoolean()).isTrue();
        assertThat(json.get("cancelled").asBoolean()).isFalse();
        assertThat(json.get("rowsWritten").asLong()).isEqualTo(40_000);
        assertThat(json.get("rowsReadBack").asLong())
                .isEqualTo(json.get("expectedRows").asLong())
                .isPositive();
        assertThat(json.get("budgetBytes").asLong()).isEqualTo(3 << 20);
        assertThat(json.get("peakReservedBytes").asLong()).isPositive().isLessThanOrEqualTo(3 << 20);
        assertThat(json.get("spillBytes").asLong()).isPositive();
        assertThat(json.get("outputFiles").asLong()).isPositive();
        assertZero(json, "reservedAfterClose", "engineUsedAfterClose", "spillFilesLeft");
        assertThat(json.get("warehouse").isNull()).isTrue();
        assertThat(json.get("error").isNull()).isTrue();
        assertThat(json.get("mismatch").isNull()).isTrue();
        try (Stream<Path> left = Files.list(spill)) {
            assertThat(left).as("spill scopes left under --spill-dir").isEmpty();
        }
    }

    @Test
    void cancelFromAnotherThreadCommitsNothingAndLeavesNothing() throws Exception {
        Path warehouse = tmp.resolve("wh");
        CliRun run =
                CliRun.of(args(SMALL_SPILLING_JOB, "--json", "--cancel-after-rows", "10000",
                        "--warehouse", warehouse.toString()));

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        assertThat(json.get("cancelled").asBoolean()).isTrue();
        assertThat(json.get("committed").asBoolean()).isFalse();
        assertThat(json.get("rowsWritten").asLong()).isBetween(10_000L, 39_999L);
        assertThat(json.get("verified").asBoolean()).isTrue();
        assertZero(json, "rowsReadBack", "expectedRows", "reservedAfterClose", "spillFilesLeft", "outputFiles");
        assertThat(json.get("warehouse").asText()).isEqualTo(warehouse.toAbsolutePath().toString());
        assertThat(dataFiles(warehouse)).as("uncommitted data files left in the table").isEmpty();
    }

    @Test
    void textReportExplainsTheRun() {
        CliRun run = CliRun.of(args(SMALL_SPILLING_JOB, "--format", "avro"));

        assertThat(run.exitCode()).as(run.err()).isZero();
        // The summary is word-wrapped; compare it as one line.
        assertThat(run.out().replaceAll("\\s+", " "))
                .contains("provider 'heap'")
                .contains("budget 3.0 MiB")
                .contains("never above it")
                .contains("spilled")
                .contains("0 files left after close")
                .contains("verify OK: read back")
                .contains("avro");
    }

    @Test
    void badBudgetIsAUsageErrorNamingTheOption() {
        CliRun run = CliRun.of("demo", "--budget", "12x", "--json");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("'--budget'").contains("12x").contains("not a size");
    }

    @Test
    void budgetBelowEightPagesNamesTheBudget() {
        CliRun run = CliRun.of("demo", "--budget", "20k");
        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'--budget'").contains("below the minimum of 32k (8 pages of 4k)");

        CliRun given = CliRun.of("demo", "--budget", "256k", "--page-size", "64k");
        assertThat(given.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(given.err()).contains("'--budget'").contains("below the minimum of 512k (8 pages of 64k)");
    }

    @Test
    void unknownFormatIsAUsageErrorListingTheFormats() {
        CliRun run = CliRun.of("demo", "--format", "csv");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'--format'").contains("'csv'").contains("parquet, orc, avro");
    }

    @Test
    void unknownProviderListsTheProvidersFound() {
        CliRun run = CliRun.of("demo", "--provider", "nope");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'--provider'").contains("'nope'").contains("found: ").contains("heap");
    }

    @Test
    void cancelAfterMoreRowsThanWrittenIsRejected() {
        CliRun run = CliRun.of("demo", "--rows", "10", "--cancel-after-rows", "11");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("'--cancel-after-rows'");
    }

    /** The heap provider refuses, when the write opens, a budget its JVM's heap cannot hold: bad arguments, both numbers named. */
    @Test
    void aBudgetLargerThanTheHeapIsBadArgumentsNamingBothNumbers() throws Exception {
        long overHeap = (Runtime.getRuntime().maxMemory() / (1 << 20) + 1) << 20;
        CliRun run = CliRun.of("demo", "--rows", "1000", "--budget", overHeap + "", "--json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.json().get("error").asText())
                .contains("'governance.memory.budget' = " + overHeap + " bytes")
                .contains("maximum heap is " + Runtime.getRuntime().maxMemory() + " bytes");
        assertThat(run.json().get("errorKind").asText()).isEqualTo("usage");
        assertThat(run.json().get("rowsWritten").asLong()).isZero();
    }

    /**
     * A budget above the machine's memory is refused before anything runs, whatever the provider,
     * naming the option and the bound; the bound is at least the heap and at most the memory the
     * kernel reports ({@code /proc/meminfo}).
     */
    @Test
    void aBudgetAboveTheMachinesMemoryIsRefusedNamingTheBound() throws Exception {
        for (String provider : List.of("heap", "offheap", "native")) {
            CliRun run = CliRun.of("demo", "--provider", provider, "--budget", "10t", "--json");

            assertThat(run.exitCode()).as(provider).isEqualTo(GovernanceCli.EXIT_USAGE);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).contains("Invalid value for option '--budget': " + (10L << 40) + " bytes (10.0 TiB)"
                    + " is more than this machine's memory, ");
            java.util.regex.Matcher bound = java.util.regex.Pattern.compile("machine's memory, (\\d+) bytes").matcher(run.err());
            assertThat(bound.find()).isTrue();
            long memTotal = Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal:")).map(l -> l.replaceAll("\\D", ""))
                    .mapToLong(kib -> Long.parseLong(kib) * 1024).findFirst().orElseThrow();
            assertThat(Long.parseLong(bound.group(1)))
                    .isGreaterThanOrEqualTo(Runtime.getRuntime().maxMemory())
                    .isLessThanOrEqualTo(memTotal);
        }
    }

    @Test
    void aSpillLimitLargerThanTheSpillDisksIsRefusedNamingTheBound() throws Exception {
        Path spill = Files.createDirectory(tmp.resolve("spill"));
        long disk = Files.getFileStore(spill).getTotalSpace();
        CliRun run = CliRun.of("demo", "--spill-dir", spill.toString(), "--spill-max-bytes", (disk + 1) + "");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("Invalid value for option '--spill-max-bytes': " + (disk + 1) + " bytes")
                .contains("is more than the " + disk + " bytes").contains("'unlimited'");
    }

    @Test
    void budgetTooSmallForTheTableIsAFailureWithTheReasonInTheReport() throws Exception {
        // The smallest budget the options accept (8 pages of 4k) cannot hold a file writer as well.
        CliRun run = CliRun.of("demo", "--rows", "1000", "--budget", "32k", "--page-size", "4k", "--json");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_FAILURE);
        JsonNode json = run.json();
        assertThat(json.get("error").asText()).contains("ResourceExhaustedException").contains("governance.memory.budget");
        assertThat(json.get("verified").asBoolean()).isFalse();
        assertThat(json.get("reservedAfterClose").asLong()).isZero();
        assertThat(json.get("spillFilesLeft").asLong()).isZero();
        assertThat(run.err()).contains("error: ResourceExhaustedException");
    }

    private static String[] args(String[] base, String... more) {
        List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Data files under the table's bucket directories. */
    private static List<Path> dataFiles(Path warehouse) throws IOException {
        try (Stream<Path> walk = Files.walk(warehouse)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> p.getParent().getFileName().toString().startsWith("bucket-"))
                    .toList();
        }
    }

    /** Each of {@code keys} is a number equal to zero in {@code json}. */
    private static void assertZero(JsonNode json, String... keys) {
        for (String key : keys) {
            assertThat(json.get(key).asLong()).as(key).isZero();
        }
    }
}
