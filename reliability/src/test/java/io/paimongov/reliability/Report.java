package io.paimongov.reliability;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The matrix's results, written as JSON: the settings, a summary, and one entry per (allocator,
 * fault) in matrix order with its status ({@code passed}, {@code failed}, or {@code missing} when no
 * run of the cell was recorded), its time, and every run's outcome and checks with their values.
 * A cell passes only when it has runs and every check of every run passed. Jackson writes it, two
 * spaces per level and {@code "key": value}, as the CLI's {@code --json} reports.
 *
 * <p><b>Thread-safety:</b> thread-safe (recording and writing are synchronized).
 */
final class Report {

    /** One run of a cell. {@code error} is set when the run itself broke off. */
    record Run(int repeat, long seed, String outcome, String retryOutcome, List<Checks.Check> checks, String error, String dir) {
        boolean passed() {
            return error == null && !checks.isEmpty() && checks.stream().allMatch(Checks.Check::passed);
        }
    }

    record Cell(List<Run> runs, long millis) {
        String status() {
            return !runs.isEmpty() && runs.stream().allMatch(Run::passed) ? "passed" : "failed";
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectWriter WRITER = JSON.writer(new DefaultPrettyPrinter(
                    Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n")));

    private final Settings settings;
    private final Map<Allocator, Map<Fault, Cell>> cells = new EnumMap<>(Allocator.class);

    Report(Settings settings) {
        this.settings = settings;
    }

    synchronized void record(Allocator allocator, Fault fault, List<Run> runs, long millis) {
        cells.computeIfAbsent(allocator, a -> new EnumMap<>(Fault.class)).put(fault, new Cell(List.copyOf(runs), millis));
    }

    /** {@code passed}, {@code failed} or {@code missing}. */
    synchronized String status(Allocator allocator, Fault fault) {
        Cell cell = cells.getOrDefault(allocator, Map.of()).get(fault);
        return cell == null ? "missing" : cell.status();
    }

    /** Counts of passed, failed and missing cells over the whole matrix. */
    synchronized Map<String, Integer> summary() {
        Map<String, Integer> counts = new java.util.LinkedHashMap<>();
        counts.put("cells", Allocator.values().length * Fault.values().length);
        counts.put("passed", 0);
        counts.put("failed", 0);
        counts.put("missing", 0);
        for (Allocator a : Allocator.values()) {
            for (Fault f : Fault.values()) {
                counts.merge(status(a, f), 1, Integer::sum);
            }
        }
        return counts;
    }

    synchronized String toJson() {
        ObjectNode json = JSON.createObjectNode();
        json.put("suite", "reliability");
        json.put("generated", Instant.now().toString());
        ObjectNode settingsNode = json.putObject("settings");
        settings.asMap().forEach((k, v) -> settingsNode.set(k, JSON.valueToTree(v)));
        Map<String, Integer> summary = summary();
        json.put("complete", summary.get("passed").equals(summary.get("cells")));
        ObjectNode summaryNode = json.putObject("summary");
        summary.forEach(summaryNode::put);
        ArrayNode allocators = json.putArray("allocators");
        for (Allocator a : Allocator.values()) {
            allocators.add(a.id);
        }
        ArrayNode faults = json.putArray("faults");
        for (Fault f : Fault.values()) {
            faults.addObject().put("id", f.id).put("description", f.description);
        }
        ArrayNode matrix = json.putArray("matrix");
        for (Allocator a : Allocator.values()) {
            for (Fault f : Fault.values()) {
                cell(matrix.addObject(), a, f);
            }
        }
        try {
            return WRITER.writeValueAsString(json) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("Jackson could not write a tree of its own nodes", e);
        }
    }

    private void cell(ObjectNode json, Allocator a, Fault f) {
        Cell cell = cells.getOrDefault(a, Map.of()).get(f);
        json.put("allocator", a.id);
        json.put("fault", f.id);
        json.put("status", cell == null ? "missing" : cell.status());
        if (cell != null) {
            json.put("millis", cell.millis());
            ArrayNode runs = json.putArray("runs");
            for (Run r : cell.runs()) {
                run(runs.addObject(), r);
            }
        }
    }

    private static void run(ObjectNode json, Run r) {
        json.put("repeat", r.repeat());
        json.put("seed", r.seed());
        json.put("passed", r.passed());
        json.put("outcome", r.outcome());
        json.put("retryOutcome", r.retryOutcome());
        if (r.error() != null) {
            json.put("error", r.error());
        }
        if (r.dir() != null) {
            json.put("keptDirectory", r.dir());
        }
        ArrayNode checks = json.putArray("checks");
        for (Checks.Check c : r.checks()) {
            checks.addObject()
                    .put("phase", c.phase())
                    .put("check", c.name())
                    .put("passed", c.passed())
                    .put("value", c.value())
                    .put("expected", c.expected());
        }
    }

    /** Writes the JSON to {@code file}, creating its directory. */
    synchronized void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, toJson(), StandardCharsets.UTF_8);
    }
}
