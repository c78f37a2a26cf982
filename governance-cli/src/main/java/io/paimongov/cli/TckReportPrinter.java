package io.paimongov.cli;

import io.paimongov.tck.Rule;
import io.paimongov.tck.TckReport;
import io.paimongov.tck.TckReport.RuleResult;
import io.paimongov.tck.TckReport.Status;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two forms of a {@link TckReport} the {@code tck} command prints. Text: one row per rule (id,
 * required or optional, status, milliseconds, and for a failure or skip the first line of its
 * message), a line on what timed out or did not run when any did, then {@code N passed, N failed,
 * N skipped} as the last line (failed counting the timed out); it is for people and may change. JSON: the stable keys documented in {@code docs/cli.md}, in the order of {@link #json}.
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
        line(out, summary(report));
        return out.toString();
    }

    /** {@code N passed, N failed, N skipped}; failed counts the rules that timed out too. */
    static String summary(TckReport report) {
        return report.count(Status.PASSED) + " passed, " + report.failures() + " failed, "
                + report.count(Status.SKIPPED) + " skipped";
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
