package io.paimongov.cli;

import io.paimongov.tck.Rule;
import io.paimongov.tck.TckReport;
import io.paimongov.tck.TckReport.RuleResult;
import io.paimongov.tck.TckReport.Status;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The two forms of a {@link TckReport} the {@code tck} command prints. Text: one row per rule (id,
 * required or optional, status, milliseconds, and for a failure or skip the first line of its
 * message), a line on what timed out or did not run when any did, a line with the settings in
 * force and, when any made the kit check less than its defaults, a line naming those, then {@code
 * N passed, N failed, N skipped} as the last line (failed counting the timed out), followed on the
 * same line by the required rules that were skipped and why; it is for people and may change.
 * JSON: the stable keys documented in {@code docs/cli.md}, in the order of {@link #json}.
 *
 * <p>Stateless; thread-safe; does not throw.
 */
final class TckReportPrinter {

    private TckReportPrinter() {}

    /** The table and the summary line, each line ended with a line separator. */
    static String text(TckReport report) {
        List<RuleResult> rules = report.rules();
        int idWidth = rules.stream().mapToInt(r -> r.id().length()).reduce("RULE".length(), Math::max);
        String row = "%-" + idWidth + "s  %-8s  %-7s  %7s  %s";
        StringBuilder out = new StringBuilder();
        line(out, String.format(row, "RULE", "REQUIRED", "STATUS", "MILLIS", "MESSAGE"));
        for (RuleResult r : rules) {
            String message = r.status() == Status.PASSED ? "" : firstLine(r.message());
            line(out, String.format(row, r.id(), r.required() ? "required" : "optional", r.status(), r.millis(), message));
        }
        String ending = ending(report);
        if (ending != null) {
            line(out, ending);
        }
        line(out, "settings: " + report.settings().stream().map(s -> s.key() + "=" + s.value()).collect(Collectors.joining(", ")));
        if (!report.weakened().isEmpty()) {
            line(out, "weakened: " + report.weakened().stream().map(s -> s.key() + "=" + s.value() + " (default " + s.defaultValue() + ")")
                    .collect(Collectors.joining(", ")) + ": the kit checked less than at its defaults, and a pass says less");
        }
        line(out, summary(report));
        return out.toString();
    }

    /**
     * {@code N passed, N failed, N skipped} (failed counts the rules that timed out too), then, when
     * required rules were skipped, which and why: {@code ; not conforming: required rules skipped:
     * MEM-11, MEM-12 (<why>); CANCEL-6 (<why>)}, rules with the same reason together.
     */
    static String summary(TckReport report) {
        String counts = report.count(Status.PASSED) + " passed, " + report.failures() + " failed, " + report.count(Status.SKIPPED) + " skipped";
        List<RuleResult> skipped = report.requiredSkipped();
        if (skipped.isEmpty()) {
            return counts;
        }
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (RuleResult r : skipped) {
            byReason.computeIfAbsent(skipReason(r), k -> new java.util.ArrayList<>()).add(r.id());
        }
        return counts + "; not conforming: required rules skipped: " + byReason.entrySet().stream()
                .map(e -> String.join(", ", e.getValue()) + " (" + e.getKey() + ")")
                .collect(Collectors.joining("; "));
    }

    /** Why a rule was skipped: its message's first line after {@code [ID] skipped: }. */
    private static String skipReason(RuleResult rule) {
        String line = firstLine(rule.message());
        String tag = "[" + rule.id() + "] skipped: ";
        return line.startsWith(tag) ? line.substring(tag.length()) : line;
    }

    /** Why the run did not go through every rule, or what of the failed timed out; null when neither. */
    private static String ending(TckReport report) {
        long timedOut = report.count(Status.TIMED_OUT);
        long notRun = report.count(Status.NOT_RUN);
        if (timedOut == 0 && notRun == 0) {
            return null;
        }
        String how = switch (report.ending()) {
            case COMPLETED -> "the run went through every rule";
            case RUN_TIMEOUT -> "the run's time limit ended the run";
            case STOPPED -> "the run was stopped";
        };
        return how + ": " + timedOut + " timed out (counted as failed), " + notRun + " not run";
    }

    /** The report as a tree for {@link Json#write}. */
    static Map<String, Object> json(TckReport report) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("provider", report.provider());
        json.put("passed", report.count(Status.PASSED));
        json.put("failed", report.failures());
        json.put("skipped", report.count(Status.SKIPPED));
        json.put("timedOut", report.count(Status.TIMED_OUT));
        json.put("notRun", report.count(Status.NOT_RUN));
        json.put("requiredPassed", report.requiredPassed());
        json.put("ended", report.ending().name());
        json.put("requiredSkipped", report.requiredSkipped().stream().map(r -> {
            Map<String, Object> skipped = new LinkedHashMap<>();
            skipped.put("id", r.id());
            skipped.put("reason", skipReason(r));
            return skipped;
        }).toList());
        json.put("weakened", !report.weakened().isEmpty());
        json.put("settings", report.settings().stream().map(s -> {
            Map<String, Object> setting = new LinkedHashMap<>();
            setting.put("key", s.key());
            setting.put("value", s.value());
            setting.put("default", s.defaultValue());
            setting.put("weakens", s.weakens());
            return setting;
        }).toList());
        json.put("rules", report.rules().stream().map(TckReportPrinter::json).toList());
        return json;
    }

    private static Map<String, Object> json(RuleResult rule) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", rule.id());
        json.put("required", rule.required());
        json.put("stochastic", Rule.byId(rule.id()).map(Rule::stochastic).orElse(false));
        json.put("status", rule.status().name());
        json.put("message", rule.message());
        json.put("millis", rule.millis());
        json.put("reported", rule.reported());
        json.put("output", rule.output());
        return json;
    }

    private static String firstLine(String message) {
        int end = message.indexOf('\n');
        return (end < 0 ? message : message.substring(0, end)).strip();
    }

    private static void line(StringBuilder out, String line) {
        out.append(line.stripTrailing()).append(System.lineSeparator());
    }
}
