package io.paimongov.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report says what ran: a cell without runs is missing, a run without checks or with a failed one fails. */
@Tag("reliability")
class ReportTest {

    private static final Settings SETTINGS =
            new Settings(2000, 1, 7, 3L << 20, Set.of(Allocator.HEAP), Set.of(Fault.ENGINE_CANCELS));

    private static Report.Run run(boolean passed, String value) {
        Checks checks = new Checks().phase("after fault");
        checks.check("outcome", passed, value, "CANCELLED");
        return new Report.Run(0, 7, value, "COMMITTED", checks.all(), null, null);
    }

    @Test
    void cellsThatDidNotRunAreMissingAndTheMatrixIsIncomplete(@TempDir Path dir) throws Exception {
        Report report = new Report(SETTINGS);
        report.record(Allocator.HEAP, Fault.ENGINE_CANCELS, List.of(run(true, "CANCELLED")), 12);
        report.record(Allocator.HEAP, Fault.THREAD_INTERRUPTED, List.of(run(false, "FAILED: \"quoted\"\nsecond line")), 34);
        report.write(dir.resolve("nested/report.json"));

        JsonNode json = Json.read(dir.resolve("nested/report.json"));
        int cells = Allocator.values().length * Fault.values().length;
        assertThat(json.get("complete").asBoolean()).isFalse();
        assertThat(json.get("summary").get("cells").asInt()).isEqualTo(cells);
        assertThat(json.get("summary").get("passed").asInt()).isEqualTo(1);
        assertThat(json.get("summary").get("failed").asInt()).isEqualTo(1);
        assertThat(json.get("summary").get("missing").asInt()).isEqualTo(cells - 2);
        assertThat(json.get("matrix")).hasSize(cells);
        assertThat(report.status(Allocator.SPARK, Fault.PROCESS_KILLED)).isEqualTo("missing");
        JsonNode failed = cell(json, "heap", "thread-interrupted");
        assertThat(failed.get("status").asText()).isEqualTo("failed");
        assertThat(failed.get("runs").get(0).get("checks").get(0).get("value").asText()).isEqualTo("FAILED: \"quoted\"\nsecond line");
        assertThat(json.get("settings").get(Settings.ROWS).asInt()).isEqualTo(2000);
    }

    @Test
    void keysComeInTheDocumentedOrderAndCountsStayIntegers() throws Exception {
        Report report = new Report(SETTINGS);
        Checks checks = new Checks().phase("after fault");
        checks.check("outcome", true, "CANCELLED", "CANCELLED");
        report.record(Allocator.HEAP, Fault.ENGINE_CANCELS,
                List.of(new Report.Run(0, 7, "CANCELLED", null, checks.all(), "broke off", "/kept")), 12);
        String text = report.toJson();

        JsonNode json = Json.parse(text);
        assertThat(names(json)).containsExactly(
                "suite", "generated", "settings", "complete", "summary", "allocators", "faults", "matrix");
        JsonNode ran = cell(json, "heap", "engine-cancels");
        assertThat(names(ran)).containsExactly("allocator", "fault", "status", "millis", "runs");
        assertThat(ran.get("millis").isIntegralNumber()).isTrue();
        JsonNode run = ran.get("runs").get(0);
        assertThat(names(run)).containsExactly(
                "repeat", "seed", "passed", "outcome", "retryOutcome", "error", "keptDirectory", "checks");
        assertThat(run.get("seed").isIntegralNumber()).isTrue();
        assertThat(run.get("retryOutcome").isNull()).isTrue();
        assertThat(names(run.get("checks").get(0))).containsExactly("phase", "check", "passed", "value", "expected");
        assertThat(names(cell(json, "spark", "process-killed"))).containsExactly("allocator", "fault", "status");
        assertThat(json.get("settings").get("budgetBytes").isIntegralNumber()).isTrue();
        assertThat(json.get("faults").get(0).get("id").asText()).isEqualTo(Fault.values()[0].id);
        assertThat(text).startsWith("{\n  \"suite\": \"reliability\",\n").endsWith("\n}\n");
    }

    @Test
    void aRunWithoutChecksOrThatBrokeOffIsNotPassed() {
        Report report = new Report(SETTINGS);
        report.record(Allocator.HEAP, Fault.ENGINE_CANCELS, List.of(new Report.Run(0, 7, null, null, List.of(), null, null)), 1);
        Checks checks = new Checks();
        checks.check("outcome", true, "CANCELLED", "CANCELLED");
        report.record(Allocator.FLINK, Fault.ENGINE_CANCELS, List.of(new Report.Run(0, 7, "CANCELLED", null, checks.all(), "broke off", null)), 1);
        report.record(Allocator.SPARK, Fault.ENGINE_CANCELS, List.of(), 1);

        assertThat(report.status(Allocator.HEAP, Fault.ENGINE_CANCELS)).isEqualTo("failed");
        assertThat(report.status(Allocator.FLINK, Fault.ENGINE_CANCELS)).isEqualTo("failed");
        assertThat(report.status(Allocator.SPARK, Fault.ENGINE_CANCELS)).isEqualTo("failed");
        assertThat(report.summary().get("passed")).isZero();
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static JsonNode cell(JsonNode json, String allocator, String fault) {
        for (JsonNode c : json.get("matrix")) {
            if (c.get("allocator").asText().equals(allocator) && c.get("fault").asText().equals(fault)) {
                return c;
            }
        }
        throw new AssertionError("no cell " + allocator + " x " + fault);
    }
}
