package io.paimongov.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The matrix's results, written as JSON: the settings, a summary, and one entry per (allocator,
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

    synchronized String toJson() {
        Json j = new Json();
        j.open('{');
        j.field("suite").string("reliability");
        j.field("generated").string(Instant.now().toString());
        j.field("settings").open('{');
        settings.asMap().forEach((k, v) -> j.field(k).value(v));
        j.close('}');
        Map<String, Integer> summary = summary();
        j.field("complete").value(summary.get("passed").equals(summary.get("cells")));
        j.field("summary").open('{');
        summary.forEach((k, v) -> j.field(k).value(v));
        j.close('}');
        j.field("allocators").open('[');
        for (Allocator a : Allocator.values()) {
            j.item().string(a.id);
        }
        j.close(']');
        j.field("faults").open('[');
        for (Fault f : Fault.values()) {
            j.item().open('{');
            j.field("id").string(f.id);
            j.field("description").string(f.description);
            j.close('}');
        }
        j.close(']');
        j.field("matrix").open('[');
        for (Allocator a : Allocator.values()) {
            for (Fault f : Fault.values()) {
                cell(j.item(), a, f);
            }
        }
        j.close(']');
        j.close('}');
        return j.toString();
    }

    private void cell(Json j, Allocator a, Fault f) {
        Cell cell = cells.getOrDefault(a, Map.of()).get(f);
        j.open('{');
        j.field("allocator").string(a.id);
        j.field("fault").string(f.id);
        j.field("status").string(cell == null ? "missing" : cell.status());
        if (cell != null) {
            j.field("millis").value(cell.millis());
            j.field("runs").open('[');
            for (Run r : cell.runs()) {
                run(j.item(), r);
            }
            j.close(']');
        }
        j.close('}');
    }

    private static void run(Json j, Run r) {
        j.open('{');
        j.field("repeat").value(r.repeat());
        j.field("seed").value(r.seed());
        j.field("passed").value(r.passed());
        j.field("outcome").string(r.outcome());
        j.field("retryOutcome").string(r.retryOutcome());
        if (r.error() != null) {
            j.field("error").string(r.error());
        }
        if (r.dir() != null) {
            j.field("keptDirectory").string(r.dir());
        }
        j.field("checks").open('[');
        for (Checks.Check c : r.checks()) {
            j.item().open('{');
            j.field("phase").string(c.phase());
            j.field("check").string(c.name());
            j.field("passed").value(c.passed());
            j.field("value").string(c.value());
            j.field("expected").string(c.expected());
            j.close('}');
        }
        j.close(']');
        j.close('}');
    }

    /** Writes the JSON to {@code file}, creating its directory. */
    synchronized void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, toJson(), StandardCharsets.UTF_8);
    }

    /** A small JSON writer: enough for the report, with proper string escapes. */
    private static final class Json {
        private final StringBuilder out = new StringBuilder();
        private final List<Boolean> first = new ArrayList<>();

        Json open(char bracket) {
            out.append(bracket);
            first.add(Boolean.TRUE);
            return this;
        }

        Json close(char bracket) {
            first.remove(first.size() - 1);
            out.append('\n').append("  ".repeat(first.size())).append(bracket);
            return this;
        }

        Json field(String name) {
            item();
            string(name);
            out.append(": ");
            return this;
        }

        Json item() {
            int top = first.size() - 1;
            if (!first.get(top)) {
                out.append(',');
            }
            first.set(top, Boolean.FALSE);
            out.append('\n').append("  ".repeat(first.size()));
            return this;
        }

        Json value(Object v) {
            if (v instanceof Number || v instanceof Boolean) {
                out.append(v);
            } else {
                string(String.valueOf(v));
            }
            return this;
        }

        Json string(String s) {
            if (s == null) {
                out.append("null");
                return this;
            }
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
            return this;
        }

        @Override
        public String toString() {
            return out.append('\n').toString();
        }
    }
}
