package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The contract, the kit and the javadoc stay in step. docs/spi.md defines each clause once, as a
 * paragraph that starts with its id in bold ({@code **ALLOC.3** ...}); a clause the kit cannot check
 * carries a line starting {@code Not checked by the kit:} with the reason. This test fails when a
 * clause has neither a rule nor a reason (or has both), when a rule, the javadoc of governance-spi
 * or docs/spi.md itself cites a clause that is not defined, or when an id is defined twice.
 */
class ContractDriftTest {

    private static final Pattern DEFINITION = Pattern.compile("^\\*\\*([A-Z]+\\.\\d+)\\*\\* ");
    private static final String UNCHECKED = "Not checked by the kit:";

    @Test
    void theContractTheRulesAndTheJavadocAgree() throws IOException {
        String spi = Files.readString(Path.of("..", "docs", "spi.md"));
        Map<String, List<String>> citedByRules = new LinkedHashMap<>();
        for (Rule rule : Rule.values()) {
            citedByRules.put(rule.id(), rule.clauses());
        }
        List<String> problems = problems(spi, citedByRules, javadoc(Path.of("..", "governance-spi", "src", "main", "java")));
        assertEquals(List.of(), problems, "docs/spi.md, Rule.java and governance-spi's javadoc have drifted");
    }

    @Test
    void everyRuleCitesAClause() {
        for (Rule rule : Rule.values()) {
            assertTrue(!rule.clauses().isEmpty(), rule.id() + " cites no clause of docs/spi.md");
        }
    }

    /** Each kind of drift is reported, with the id that drifted; a clean document reports nothing. */
    @Test
    void eachKindOfDriftIsReported() {
        String doc = String.join("\n",
                "# Contract",
                "",
                "**ALLOC.1** Pages are pages.",
                "",
                "**ALLOC.2** Nobody checks this.",
                "",
                "**ALLOC.3** Runtime promise, see ALLOC.1.",
                "Not checked by the kit: the runtime's.",
                "",
                "**ALLOC.1** Pages again.",
                "",
                "**LOCK.1** Checked and excused.",
                "Not checked by the kit: but a rule cites it.",
                "",
                "Prose citing ALLOC.9.");
        Map<String, List<String>> rules = new LinkedHashMap<>();
        rules.put("MEM-1", List.of("ALLOC.1", "LOCK.1"));
        rules.put("MEM-2", List.of("ALLOC.7"));
        List<String> problems = problems(doc, rules, "/** See docs/spi.md, clause LOCK.1 and LOCK.8. */");
        assertEquals(
                List.of(
                        "ALLOC.1 is defined 2 times in docs/spi.md",
                        "ALLOC.2 is checked by no rule and gives no reason (a line 'Not checked by the kit: <reason>')",
                        "LOCK.1 says it is not checked by the kit, yet rules cite it: [MEM-1]",
                        "rule MEM-2 cites ALLOC.7, which docs/spi.md does not define",
                        "the javadoc of governance-spi cites LOCK.8, which docs/spi.md does not define",
                        "docs/spi.md cites ALLOC.9, which it does not define"),
                problems);
        String clean = "**ALLOC.1** Pages.\n\n**ALLOC.2** Promise, unlike ALLOC.1.\nNot checked by the kit: the runtime's.\n";
        assertEquals(List.of(), problems(clean, Map.of("MEM-1", List.of("ALLOC.1")), "ALLOC.2"));
    }

    /** What is wrong between the clauses of {@code spi}, the clauses each rule cites and {@code javadoc}. */
    static List<String> problems(String spi, Map<String, List<String>> citedByRules, String javadoc) {
        Map<String, Integer> definitions = new TreeMap<>();
        Set<String> excused = new TreeSet<>();
        String current = null;
        for (String line : spi.split("\n", -1)) {
            Matcher m = DEFINITION.matcher(line);
            if (m.find()) {
                current = m.group(1);
                definitions.merge(current, 1, Integer::sum);
            } else if (line.isBlank() || line.startsWith("#")) {
                current = null;
            }
            if (current != null && line.startsWith(UNCHECKED) && !line.substring(UNCHECKED.length()).isBlank()) {
                excused.add(current);
            }
        }
        Map<String, List<String>> rulesByClause = new TreeMap<>();
        citedByRules.forEach((rule, clauses) -> clauses.forEach(c -> rulesByClause.computeIfAbsent(c, k -> new ArrayList<>()).add(rule)));

        List<String> problems = new ArrayList<>();
        definitions.forEach((id, times) -> {
            if (times > 1) {
                problems.add(id + " is defined " + times + " times in docs/spi.md");
            }
        });
        for (String id : definitions.keySet()) {
            boolean checked = rulesByClause.containsKey(id);
            if (!checked && !excused.contains(id)) {
                problems.add(id + " is checked by no rule and gives no reason (a line '" + UNCHECKED + " <reason>')");
            }
            if (checked && excused.contains(id)) {
                problems.add(id + " says it is not checked by the kit, yet rules cite it: " + rulesByClause.get(id));
            }
        }
        citedByRules.forEach((rule, clauses) -> clauses.stream()
                .filter(c -> !definitions.containsKey(c))
                .forEach(c -> problems.add("rule " + rule + " cites " + c + ", which docs/spi.md does not define")));
        Set<String> areas = definitions.keySet().stream().map(id -> id.substring(0, id.indexOf('.'))).collect(Collectors.toSet());
        for (String id : citations(javadoc, areas)) {
            if (!definitions.containsKey(id)) {
                problems.add("the javadoc of governance-spi cites " + id + ", which docs/spi.md does not define");
            }
        }
        for (String id : citations(spi, areas)) {
            if (!definitions.containsKey(id)) {
                problems.add("docs/spi.md cites " + id + ", which it does not define");
            }
        }
        return problems;
    }

    /** Every token {@code AREA.n} in {@code text} whose area is one docs/spi.md uses, in order, once each. */
    private static Set<String> citations(String text, Set<String> areas) {
        Set<String> ids = new TreeSet<>();
        if (areas.isEmpty()) {
            return ids;
        }
        Matcher m = Pattern.compile("\\b(" + String.join("|", areas) + ")\\.\\d+\\b").matcher(text);
        while (m.find()) {
            ids.add(m.group());
        }
        return ids;
    }

    /** The text of every Java source under {@code root}. */
    private static String javadoc(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().map(p -> {
                try {
                    return Files.readString(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).collect(Collectors.joining("\n"));
        }
    }
}
