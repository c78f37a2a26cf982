package io.paimongov.reliability;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paimongov.fixtures.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The matrix's results, written as JSON (through Jackson): the settings, a summary, and one entry per (allocator,
 * fault) in matrix order with its status ({@code passed}, {@code failed}, or {@code missing} when no
 * run of the cell was recorded), its time, and every run's outcome and checks with their values.
 * A cell passes only when it has runs and every check of every run passed.
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

    synchronized String toJson() throws IOException {
        ObjectNode j = Json.object();
        j.put("suite", "reliability");
        j.put("generated", Instant.now().toString());
        j.set("settings", Json.tree(settings.asMap()));
        Map<String, Integer> summary = summary();
        j.put("complete", summary.get("passed").equals(summary.get("cells")));
        j.set("summary", Json.tree(summary));
        ArrayNode allocators = j.putArray("allocators");
        for (Allocator a : Allocator.values()) {
            allocators.add(a.id);
        }
        ArrayNode faults = j.putArray("faults");
        for (Fault f : Fault.values()) {
            faults.addObject().put("id", f.id).put("description", f.description);
        }
        ArrayNode matrix = j.putArray("matrix");
        for (Allocator a : Allocator.values()) {
            for (Fault f : Fault.values()) {
                cell(matrix.addObject(), a, f);
            }
        }
        return Json.pretty(j);
    }

    private void cell(ObjectNode j, Allocator a, Fault f) {
        Cell cell = cells.getOrDefault(a, Map.of()).get(f);
        j.put("allocator", a.id);
        j.put("fault", f.id);
        j.put("status", cell == null ? "missing" : cell.status());
        if (cell != null) {
            j.put("millis", cell.millis());
            ArrayNode runs = j.putArray("runs");
            for (Run r : cell.runs()) {
                run(runs.addObject(), r);
            }
        }
    }

    private static void run(ObjectNode j, Run r) {
        j.put("repeat", r.repeat());
        j.put("seed", r.seed());
        j.put("passed", r.passed());
        j.put("outcome", r.outcome());
        j.put("retryOutcome", r.retryOutcome());
        if (r.error() != null) {
            j.put("error", r.error());
        }
        if (r.dir() != null) {
            j.put("keptDirectory", r.dir());
        }
        ArrayNode checks = j.putArray("checks");
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
