package io.paimongov.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Writes a {@link TckReport} as JUnit XML, one file per subject ({@code TEST-tck.memory.xml},
 * ...): a test case per rule, its class name the rule's {@link Rule#subject() subject} and its
 * name the rule id; a failed or timed-out rule's message in {@code <failure>} (type {@code
 * required} or {@code optional}, {@code timed-out} added for a time-out), a rule the run never
 * started in {@code <error type="not-run">}, a skipped rule's reason in {@code <skipped>}; the
 * provider and the run's settings in {@code <properties>} ({@code weakened} true when any setting
 * made the kit check less than its defaults, each such setting's {@code <key>.weakens} true, each
 * default as {@code <key>.default}); what the rule reported (jqwik's seed and tries, the kit's own values) in
 * {@code <system-out>}, what it printed while it ran (logs) in {@code <system-err>}. Written from
 * the report the run collected, so a rule that timed out is in it too. Stateless.
 */
final class TckXml {

    private TckXml() {}

    /**
     * Writes the files into {@code dir} (created if missing), replacing files of the same names.
     *
     * @throws UncheckedIOException when a file cannot be written
     */
    static void write(TckReport report, Path dir) {
        Map<String, List<TckReport.RuleResult>> bySubject = report.rules().stream()
                .collect(Collectors.groupingBy(r -> Rule.byId(r.id()).orElseThrow().subject(), TreeMap::new, Collectors.toList()));
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, List<TckReport.RuleResult>> e : bySubject.entrySet()) {
                Files.writeString(dir.resolve("TEST-tck." + e.getKey() + ".xml"), suite(report, e.getKey(), e.getValue()),
                        StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kit's JUnit XML reports to " + dir, e);
        }
    }

    static String suite(TckReport report, String subject, List<TckReport.RuleResult> rules) {
        long failures = rules.stream().filter(r -> r.status() == TckReport.Status.FAILED || r.status() == TckReport.Status.TIMED_OUT).count();
        long errors = rules.stream().filter(r -> r.status() == TckReport.Status.NOT_RUN).count();
        long skipped = rules.stream().filter(r -> r.status() == TckReport.Status.SKIPPED).count();
        double seconds = rules.stream().mapToLong(TckReport.RuleResult::millis).sum() / 1000.0;
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append("<testsuite name=\"tck.").append(subject).append("\" tests=\"").append(rules.size()).append("\" failures=\"")
                .append(failures).append("\" errors=\"").append(errors).append("\" skipped=\"").append(skipped).append("\" time=\"").append(seconds(seconds))
                .append("\">\n");
        x.append("  <properties>\n");
        property(x, "provider", report.provider());
        // The settings the run had, and whether any made the kit check less than its defaults.
        property(x, "weakened", Boolean.toString(!report.weakened().isEmpty()));
        for (TckReport.Setting setting : report.settings()) {
            property(x, setting.key(), setting.value());
            property(x, setting.key() + ".default", setting.defaultValue());
            if (setting.weakens()) {
                property(x, setting.key() + ".weakens", "true");
            }
        }
        x.append("  </properties>\n");
        for (TckReport.RuleResult r : rules) {
            x.append("  <testcase classname=\"").append(subject).append("\" name=\"").append(escape(r.id())).append("\" time=\"")
                    .append(seconds(r.millis() / 1000.0)).append('"');
            String out = r.reported().isEmpty()
                    ? ""
                    : r.reported().entrySet().stream().map(e -> e.getKey() + " = " + e.getValue()).collect(Collectors.joining("\n"));
            if (r.status() == TckReport.Status.PASSED && out.isEmpty() && r.output().isEmpty()) {
                x.append("/>\n");
                continue;
            }
            x.append(">\n");
            if (r.status() == TckReport.Status.FAILED || r.status() == TckReport.Status.TIMED_OUT) {
                String type = (r.required() ? "required" : "optional") + (r.status() == TckReport.Status.TIMED_OUT ? " timed-out" : "");
                x.append("    <failure message=\"").append(escape(firstLine(r.message()))).append("\" type=\"").append(type)
                        .append("\">").append(escape(r.message())).append("</failure>\n");
            } else if (r.status() == TckReport.Status.NOT_RUN) {
                x.append("    <error message=\"").append(escape(firstLine(r.message()))).append("\" type=\"not-run\"/>\n");
            } else if (r.status() == TckReport.Status.SKIPPED) {
                x.append("    <skipped message=\"").append(escape(firstLine(r.message()))).append("\"/>\n");
            }
            if (!out.isEmpty()) {
                x.append("    <system-out>").append(escape(out)).append("</system-out>\n");
            }
            if (!r.output().isEmpty()) {
                x.append("    <system-err>").append(escape(r.output())).append("</system-err>\n");
            }
            x.append("  </testcase>\n");
        }
        return x.append("</testsuite>\n").toString();
    }

    private static void property(StringBuilder x, String name, String value) {
        x.append("    <property name=\"").append(escape(name)).append("\" value=\"").append(escape(value)).append("\"/>\n");
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.3f", s);
    }

    private static String firstLine(String message) {
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    /** XML 1.0 text: the five entities escaped, characters XML cannot hold replaced by '?'. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c < 0x20 && c != '\n' && c != '\r' && c != '\t' ? '?' : c);
            }
        }
        return out.toString();
    }
}
