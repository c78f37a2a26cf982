package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tck} against a vendor's provider whose {@code allocate} never returns and ignores
 * interrupts ({@link OutsideProviderJar#BLOCKING}), run as an operator runs it: the CLI in a JVM of
 * its own. A rule past its limit is reported timed out and the run goes on; SIGTERM sent while the
 * kit is stuck still gives exactly one JSON report on stdout, with the rules that ran, the one that
 * hung and the ones never reached.
 */
class TckHangTest {

    /** MEM-3 only reserves bytes (it passes), MEM-4 allocates (it hangs), DISCOVERY-1 never allocates. */
    private static final String[] RULES = {"--rule", "MEM-3", "--rule", "MEM-4", "--rule", "DISCOVERY-1"};
    /** Generous: a child JVM starts, loads the kit and reaches MEM-4 on a loaded machine. */
    private static final long STUCK_WITHIN_SECONDS = 120;
    private static final long EXIT_WITHIN_SECONDS = ShutdownCleanup.WAIT_MILLIS / 1000 + 60;

    @TempDir static Path vendorDir;
    static Path jar;

    @TempDir Path tmp;

    @BeforeAll
    static void buildTheVendorJar() throws Exception {
        jar = OutsideProviderJar.build(vendorDir);
    }

    @Test
    void aRulePastItsLimitTimesOutWithTheStuckStackAndTheRunGoesOn() throws Exception {
        try (CliProcess cli = start(List.of(), "--rule-timeout-s", "3")) {
            assertThat(cli.exitCode(STUCK_WITHIN_SECONDS + EXIT_WITHIN_SECONDS)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_VERIFICATION_FAILED);

            JsonNode json = Json.parse(cli.out());
            assertThat(json.get("ended").asText()).isEqualTo("COMPLETED");
            assertThat(json.get("passed").asInt()).isEqualTo(2);
            assertThat(json.get("failed").asInt()).as("a time-out counts as failed").isEqualTo(1);
            assertThat(json.get("timedOut").asInt()).isEqualTo(1);
            assertThat(json.get("notRun").asInt()).isZero();
            assertThat(statuses(json)).containsExactly("MEM-3 PASSED", "MEM-4 TIMED_OUT", "DISCOVERY-1 PASSED");
            String hung = json.get("rules").get(1).get("message").asText();
            assertThat(hung).startsWith("[MEM-4] did not finish within 3 s (its time limit; governance.tck.rule-timeout-s sets every rule's)")
                    .contains("\"tck-rule-MEM-4\"", "com.example.outside.CountingProvider$Blocking.beforeAllocate");
        }
    }

    @Test
    void sigtermWhileARuleHangsPrintsOneJsonReportOfWhatRanAndExits143() throws Exception {
        Path marker = tmp.resolve("blocked");
        try (CliProcess cli = start(List.of("-D" + OutsideProviderJar.BLOCKED_MARKER + "=" + marker))) {
            awaitFile(cli, marker);

            cli.sigterm();

            assertThat(cli.exitCode(EXIT_WITHIN_SECONDS)).as(cli.err()).isEqualTo(GovernanceCli.EXIT_SIGTERM);
            JsonNode json = Json.parse(cli.out());
            assertThat(json.get("provider").asText()).isEqualTo(OutsideProviderJar.BLOCKING);
            assertThat(json.get("ended").asText()).isEqualTo("STOPPED");
            assertThat(statuses(json)).containsExactly("MEM-3 PASSED", "MEM-4 TIMED_OUT", "DISCOVERY-1 NOT_RUN");
            assertThat(json.get("timedOut").asInt()).isEqualTo(1);
            assertThat(json.get("notRun").asInt()).isEqualTo(1);
            assertThat(json.get("requiredPassed").asBoolean()).isFalse();
            String hung = json.get("rules").get(1).get("message").asText();
            assertThat(hung).startsWith("[MEM-4] still running after ")
                    .contains(" s when the run was stopped (" + TckCommand.STOPPED_BY + ")", "\"tck-rule-MEM-4\"",
                            "com.example.outside.CountingProvider$Blocking.beforeAllocate");
            assertThat(json.get("rules").get(2).get("message").asText())
                    .isEqualTo("[DISCOVERY-1] not run: the run was stopped (" + TckCommand.STOPPED_BY + ") before it started");
            assertThat(cli.err()).as("stderr holds no report").doesNotContain("\"rules\"");
        }
    }

    private CliProcess start(List<String> jvmOptions, String... more) throws Exception {
        Path childTmp = Files.createDirectories(tmp.resolve("child-tmp"));
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        List<String> args = new java.util.ArrayList<>(List.of("tck", "--provider", OutsideProviderJar.BLOCKING, "--classpath", jar.toString(),
                "--json", "--tries", "5"));
        args.addAll(List.of(RULES));
        args.addAll(List.of(more));
        return CliProcess.start(childTmp, logs, jvmOptions, args.toArray(new String[0]));
    }

    private static List<String> statuses(JsonNode json) {
        List<String> out = new java.util.ArrayList<>();
        json.get("rules").forEach(r -> out.add(r.get("id").asText() + " " + r.get("status").asText()));
        return out;
    }

    private static void awaitFile(CliProcess cli, Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STUCK_WITHIN_SECONDS);
        while (!Files.exists(file)) {
            if (!cli.isAlive()) {
                throw new AssertionError("the CLI ended before the provider blocked, exit " + cli.exitCode(1) + ":\n" + cli.err());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the provider did not block within " + STUCK_WITHIN_SECONDS + " s; stderr:\n" + cli.err());
            }
            Thread.sleep(20);
        }
    }
}
