package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.cli.MarkdownDocs.Doc;
import io.paimongov.tck.Rule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What the reference docs (README.md, docs/**.md but the dated logs of docs/log/) say about the
 * TCK's rules matches its registry, {@link Rule}: a count of rules ("43 rules", "40 of the 43
 * rules", "three optional rules") is the number of rules (of required, of optional rules), and every rule id they name
 * ({@code MEM-4}, {@code MEM-11..13}) is one.
 */
class DocRulesTest {

    private static final Pattern COUNT = Pattern.compile("\\b(\\d+) (?:TCK |conformance )?rules\\b");
    private static final Pattern REQUIRED_OF = Pattern.compile("\\b(\\d+) of the (\\d+) rules\\b");
    private static final Pattern REQUIRED = Pattern.compile("\\b(\\d+) required rules\\b");
    private static final Pattern OPTIONAL = Pattern.compile("\\b(\\w+) optional rules\\b");
    private static final List<String> WORDS = List.of("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten");

    @Test
    void ruleCountsAreTheRegistrysCounts() {
        int all = Rule.values().length;
        long required = Arrays.stream(Rule.values()).filter(Rule::required).count();
        List<String> wrong = new ArrayList<>();
        for (Doc doc : MarkdownDocs.reference()) {
            for (int i = 0; i < doc.raw().size(); i++) {
                String line = doc.raw().get(i);
                String where = doc.name() + ":" + (i + 1) + ": ";
                Matcher of = REQUIRED_OF.matcher(line);
                while (of.find()) {
                    if (Long.parseLong(of.group(1)) != required || Integer.parseInt(of.group(2)) != all) {
                        wrong.add(where + "'" + of.group() + "' but the TCK has " + required + " required of " + all);
                    }
                }
                Matcher count = COUNT.matcher(of.replaceAll(""));
                while (count.find()) {
                    if (Integer.parseInt(count.group(1)) != all) {
                        wrong.add(where + "'" + count.group() + "' but the TCK has " + all + " rules");
                    }
                }
                Matcher opt = OPTIONAL.matcher(line);
                while (opt.find()) {
                    String n = opt.group(1).toLowerCase(java.util.Locale.ROOT);
                    long said = n.matches("\\d+") ? Long.parseLong(n) : WORDS.indexOf(n);
                    if (said >= 0 && said != all - required) {
                        wrong.add(where + "'" + opt.group() + "' but the TCK has " + (all - required) + " optional rules");
                    }
                }
                Matcher req = REQUIRED.matcher(line);
                while (req.find()) {
                    if (Long.parseLong(req.group(1)) != required) {
                        wrong.add(where + "'" + req.group() + "' but the TCK has " + required + " required rules");
                    }
                }
            }
        }
        assertThat(wrong).as("rule counts that are not the TCK's (Rule.values())").isEmpty();
    }

    @Test
    void everyRuleIdNamedIsARule() {
        Set<String> ids = Arrays.stream(Rule.values()).map(Rule::id).collect(Collectors.toSet());
        String prefixes = Arrays.stream(Rule.values()).map(r -> r.id().replaceAll("-\\d+$", "")).distinct()
                .collect(Collectors.joining("|"));
        Pattern id = Pattern.compile("\\b(" + prefixes + ")-(\\d+)(?:\\.\\.(\\d+))?\\b");
        List<String> unknown = new ArrayList<>();
        for (Doc doc : MarkdownDocs.reference()) {
            for (int i = 0; i < doc.raw().size(); i++) {
                Matcher m = id.matcher(doc.raw().get(i));
                while (m.find()) {
                    for (String n : m.group(3) == null ? List.of(m.group(2)) : List.of(m.group(2), m.group(3))) {
                        if (!ids.contains(m.group(1) + "-" + n)) {
                            unknown.add(doc.name() + ":" + (i + 1) + ": " + m.group(1) + "-" + n);
                        }
                    }
                }
            }
        }
        assertThat(unknown).as("rule ids the TCK does not have").isEmpty();
    }
}
