package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/tck.md lists every rule, with its id as a table cell, whether it is required, the clauses it
 * checks, whether it is stochastic and the broken provider that must fail it.
 */
class RuleDocsTest {

    @Test
    void everyRuleIsDocumented() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "tck.md"));
        // A rule may have several broken providers; its row names one of them. A hang fails whatever rule meets it: no row names it.
        Map<Rule, Set<String>> broken = BrokenProviders.FAULTS.entrySet().stream()
                .filter(e -> !BrokenProviders.HANGS.contains(e.getKey()))
                .collect(Collectors.groupingBy(e -> e.getValue().rule(), Collectors.mapping(e -> "`" + e.getKey() + "`", Collectors.toSet())));
        for (Rule rule : Rule.values()) {
            String row = docs.lines().filter(l -> l.startsWith("| " + rule.id() + " |")).findFirst().orElse("");
            assertTrue(!row.isEmpty(), "docs/tck.md has no row for " + rule.id());
            String[] cells = row.substring(2, row.length() - 2).split(" \\| ");
            assertEquals(7, cells.length, rule.id() + " row does not have the table's 7 cells: " + row);
            assertEquals(rule.required() ? "required" : "optional", cells[1], rule.id() + " row: " + row);
            assertEquals(String.join(", ", rule.clauses()), cells[2], rule.id() + " row does not list the clauses Rule.java cites: " + row);
            assertEquals(rule.stochastic(), cells[3].endsWith(", stochastic"), rule.id() + " row's kind does not say what Rule.stochastic() says: " + row);
            assertTrue(broken.getOrDefault(rule, Set.of("-")).contains(cells[6]),
                    rule.id() + " row does not name its broken provider " + broken.getOrDefault(rule, Set.of("-")) + ": " + row);
        }
    }
}
