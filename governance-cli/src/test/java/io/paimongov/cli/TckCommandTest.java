package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.tck.TckReport;
import io.paimongov.tck.TckSettings;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code tck} command run in process on a few rules with few tries: the JSON contract of
 * docs/cli.md, the text table, a vendor's provider found only through {@code --classpath} (a broken
 * one fails the rule that names its fault, a correct one passes it), and bad arguments.
 */
class TckCommandTest {

    /** The keys docs/cli.md promises, in order: of the report, then of each rule. */
    static final List<String> KEYS =
            List.of("provider", "passed", "failed", "skipped", "timedOut", "notRun", "requiredPassed", "ended", "requiredSkipped", "weakened",
                    "settings", "rules");
    static final List<String> RULE_KEYS = List.of("id", "required", "stochastic", "status", "message", "millis", "reported", "output");

    /** Few tries and small tables: each run takes seconds. */
    static final String[] FAST = {"--tries", "5", "--write-tries", "1", "--rows", "3000"};

    @TempDir static Path vendorDir;
    static Path outsideJar;

    @TempDir Path tmp;

    @BeforeAll
    static void buildTheVendorJar() throws Exception {
        outsideJar = OutsideProviderJar.build(vendorDir);
    }

    @Test
    void heapPassesAsOneJsonObjectWithEveryKey() throws Exception {
        String triesBefore = System.getProperty(TckSettings.TRIES);

        CliRun run = tck("--provider", "heap", "--json", "--rule", "MEM-1", "--rule", "DISCOVERY-1",
                "--rule", "discovery-2", "--rule", "WRITE-1");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        assertThat(fieldNames(json)).containsExactlyElementsOf(KEYS);
        assertThat(json.get("provider").asText()).isEqualTo("heap");
        assertThat(json.get("requiredPassed").asBoolean()).isTrue();
        assertThat(json.get("passed").asInt()).isEqualTo(4);
        assertThat(json.get("failed").asInt()).isZero();
        assertThat(json.get("skipped").asInt()).isZero();
        assertThat(json.get("timedOut").asInt()).isZero();
        assertThat(json.get("notRun").asInt()).isZero();
        assertThat(json.get("ended").asText()).isEqualTo("COMPLETED");
        assertThat(json.get("requiredSkipped")).isEmpty();
        // FAST's tries, write tries and rows are below the defaults: recorded, and flagged.
        assertThat(json.get("weakened").asBoolean()).isTrue();
        List<String> weakens = new ArrayList<>();
        for (JsonNode setting : json.get("settings")) {
            assertThat(fieldNames(setting)).containsExactly("key", "value", "default", "weakens");
            if (setting.get("weakens").asBoolean()) {
                weakens.add(setting.get("key").asText() + "=" + setting.get("value").asText() + "/" + setting.get("default").asText());
            }
        }
        assertThat(weakens).containsExactly("governance.tck.tries=5/50", "governance.tck.write-tries=1/3", "governance.tck.rows=3000/20000");
        List<String> ids = new ArrayList<>();
        for (JsonNode rule : json.get("rules")) {
            assertThat(fieldNames(rule)).containsExactlyElementsOf(RULE_KEYS);
            assertThat(rule.get("status").asText()).as(rule.toString()).isEqualTo("PASSED");
            assertThat(rule.get("required").asBoolean()).isTrue();
            assertThat(rule.get("message").asText()).isEmpty();
            assertThat(rule.get("millis").asLong()).isNotNegative();
            ids.add(rule.get("id").asText());
        }
        assertThat(ids).containsExactly("MEM-1", "WRITE-1", "DISCOVERY-1", "DISCOVERY-2");
        assertThat(System.getProperty(TckSettings.TRIES)).as("the JVM's tries after the run").isEqualTo(triesBefore);
        assertThat(run.err()).as("no line per rule with --json").doesNotContain("tck: MEM-1");
    }

    @Test
    void textIsATableThatEndsWithTheSummary() {
        // The outside provider has no standalone engine, so the optional CANCEL-5 skips.
        CliRun run = tck("--provider", OutsideProviderJar.CORRECT, "--classpath", outsideJar.toString(),
                "--rule", "MEM-1", "--rule", "CANCEL-5");

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(0)).startsWith("RULE").contains("REQUIRED", "STATUS", "MILLIS", "MESSAGE");
        assertThat(lines.get(1)).matches("MEM-1 +required +PASSED +\\d+");
        assertThat(lines.get(2)).matches("CANCEL-5 +optional +SKIPPED +\\d+ +\\[CANCEL-5\\] skipped: .+");
        assertThat(lines.get(3)).startsWith("settings: governance.tck.tries=5, governance.tck.write-tries=1, governance.tck.rows=3000, ")
                .contains("governance.tck.cancel-bound-ms=1000", "governance.tck.rule-timeout-s=each rule's own");
        assertThat(lines.get(4)).isEqualTo("weakened: governance.tck.tries=5 (default 50), governance.tck.write-tries=1 (default 3),"
                + " governance.tck.rows=3000 (default 20000): the kit checked less than at its defaults, and a pass says less");
        // An optional rule skipped does not keep the provider from conforming: nothing after the counts.
        assertThat(lines.get(lines.size() - 1)).isEqualTo("1 passed, 0 failed, 1 skipped");
        assertThat(lines).hasSize(6);
        assertThat(run.err()).contains("2 rules against provider '" + OutsideProviderJar.CORRECT + "'")
                .containsPattern("tck: MEM-1 PASSED \\(\\d+ ms\\)")
                .containsPattern("tck: CANCEL-5 SKIPPED \\(\\d+ ms\\)");
    }

    /** A run that timed out: a line before the summary says so, and the summary counts the time-out as failed. */
    @Test
    void theTextSaysWhatTimedOutAndWhatDidNotRun() {
        TckReport report = new TckReport("p", List.of(
                new TckReport.RuleResult("MEM-3", true, TckReport.Status.PASSED, "", 5, java.util.Map.of()),
                new TckReport.RuleResult("MEM-4", true, TckReport.Status.TIMED_OUT, "[MEM-4] did not finish before the run's time limit", 4000,
                        java.util.Map.of()),
                new TckReport.RuleResult("MEM-9", true, TckReport.Status.NOT_RUN, "[MEM-9] not run: the run's time limit", 0, java.util.Map.of())),
                TckReport.Ending.RUN_TIMEOUT, List.of(new TckReport.Setting("governance.tck.tries", "50", "50", false)));

        List<String> lines = TckReportPrinter.text(report).lines().toList();

        assertThat(lines.get(2)).matches("MEM-4 +required +TIMED_OUT +4000 +\\[MEM-4\\] did not finish before the run's time limit");
        assertThat(lines.get(lines.size() - 3)).isEqualTo("the run's time limit ended the run: 1 timed out (counted as failed), 1 not run");
        assertThat(lines.get(lines.size() - 2)).isEqualTo("settings: governance.tck.tries=50");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("1 passed, 1 failed, 0 skipped");
    }

    /**
     * A provider without a standalone engine: MEM-11 and CANCEL-6, required, are skipped, so the run
     * exits 1 and its last line says which required rules were skipped and why, rules of one reason
     * together; the JSON lists them under requiredSkipped.
     */
    @Test
    void theLastLineNamesTheRequiredRulesSkippedAndWhy() throws Exception {
        CliRun run = tck("--provider", OutsideProviderJar.CORRECT, "--classpath", outsideJar.toString(),
                "--rule", "MEM-11", "--rule", "MEM-12", "--rule", "CANCEL-6");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_VERIFICATION_FAILED);
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(lines.size() - 1)).isEqualTo("0 passed, 0 failed, 3 skipped; not conforming: required rules skipped:"
                + " MEM-11, MEM-12 (the provider has no standalone engine (GovernanceProvider.standalone is empty), so the kit cannot make"
                + " one tighter than the budget, share it or shrink it); CANCEL-6 (the provider has no standalone engine"
                + " (GovernanceProvider.standalone is empty), so the kit cannot count what writes register with it)");

        JsonNode json = tck("--provider", OutsideProviderJar.CORRECT, "--classpath", outsideJar.toString(), "--rule", "MEM-11", "--json").json();
        assertThat(json.get("requiredPassed").asBoolean()).isFalse();
        assertThat(json.get("requiredSkipped")).hasSize(1);
        assertThat(json.get("requiredSkipped").get(0).get("id").asText()).isEqualTo("MEM-11");
        assertThat(json.get("requiredSkipped").get(0).get("reason").asText()).startsWith("the provider has no standalone engine");
    }

    @Test
    void junitXmlGoesToTheDirectory() throws Exception {
        Path reports = tmp.resolve("reports");

        CliRun run = tck("--provider", "heap", "--rule", "DISCOVERY-1", "--junit-xml", reports.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        try (Stream<Path> files = Files.list(reports)) {
            List<Path> xml = files.filter(p -> p.getFileName().toString().endsWith(".xml")).toList();
            assertThat(xml).extracting(p -> p.getFileName().toString()).containsExactly("TEST-tck.discovery.xml");
            assertThat(Files.readString(xml.get(0)))
                    .contains("<testsuite name=\"tck.discovery\" tests=\"1\" failures=\"0\"")
                    .contains("<testcase classname=\"discovery\" name=\"DISCOVERY-1\"");
        }
    }

    @Test
    void anOutsideProviderThatIgnoresTheBudgetFailsMem1() throws Exception {
        CliRun run = tck("--provider", OutsideProviderJar.BROKEN, "--classpath", outsideJar.toString(),
                "--rule", "MEM-1", "--json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(GovernanceCli.EXIT_VERIFICATION_FAILED);
        JsonNode json = run.json();
        assertThat(json.get("provider").asText()).isEqualTo(OutsideProviderJar.BROKEN);
        assertThat(json.get("requiredPassed").asBoolean()).isFalse();
        JsonNode mem1 = json.get("rules").get(0);
        assertThat(mem1.get("id").asText()).isEqualTo("MEM-1");
        assertThat(mem1.get("status").asText()).isEqualTo("FAILED");
        assertThat(mem1.get("message").asText()).startsWith("[MEM-1]").contains("passed the capacity");
    }

    @Test
    void theSameOutsideProviderWithTheBudgetPassesMem1() throws Exception {
        // A jar and an (empty) class directory in one argument, joined as for java -cp.
        String classPath = outsideJar + File.pathSeparator + tmp;
        CliRun run = tck("--provider", OutsideProviderJar.CORRECT, "--classpath", classPath, "--rule", "MEM-1", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        assertThat(json.get("requiredPassed").asBoolean()).isTrue();
        assertThat(json.get("rules").get(0).get("status").asText()).isEqualTo("PASSED");
    }

    @Test
    void anUnknownProviderIsAUsageErrorListingTheFoundOnes() {
        CliRun run = tck("--provider", "nope", "--classpath", outsideJar.toString(), "--rule", "MEM-1");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("--provider", "'nope'", "heap", OutsideProviderJar.CORRECT, OutsideProviderJar.BROKEN);
    }

    @Test
    void anUnknownRuleIsAUsageErrorListingTheValidIds() {
        CliRun run = tck("--provider", "heap", "--rule", "MEM-99");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("--rule", "'MEM-99'", "MEM-1", "SPILL-7", "COMPACT-2");
    }

    @Test
    void aMissingClassPathEntryIsAUsageErrorNamingIt() {
        Path missing = tmp.resolve("no-such.jar");

        CliRun run = tck("--provider", "heap", "--classpath", missing.toString(), "--rule", "MEM-1");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("--classpath", missing.toString(), "does not exist");
    }

    @Test
    void aFileThatIsNotAJarIsAUsageError() throws Exception {
        Path notAJar = Files.writeString(tmp.resolve("notes.jar"), "not a zip");

        CliRun run = tck("--provider", "heap", "--classpath", notAJar.toString(), "--rule", "MEM-1");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("--classpath", notAJar.toString(), "neither a directory nor a readable jar");
    }

    @Test
    void triesBelowOneIsAUsageError() {
        CliRun run = CliRun.of("tck", "--provider", "heap", "--tries", "0");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("--tries", "at least 1");
    }

    @Test
    void theProviderIsRequired() {
        CliRun run = CliRun.of("tck");

        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("--provider");
    }

    private static CliRun tck(String... args) {
        List<String> all = new ArrayList<>(List.of("tck"));
        all.addAll(List.of(args));
        all.addAll(List.of(FAST));
        return CliRun.of(all.toArray(new String[0]));
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
