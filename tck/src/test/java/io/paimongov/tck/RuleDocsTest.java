package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
        Map<Rule, String> broken = BrokenProviders.FAULTS.entrySet().stream()
                .filter(e -> !BrokenProviders.HANGS.contains(e.getKey()))
                .collect(Collectors.toMap(e -> e.getValue().rule(), e -> "`" + e.getKey() + "`"));
        for (Rule rule : Rule.values()) {
            String row = docs.lines().filter(l -> l.startsWith("| " + rule.id() + " |")).findFirst().orElse("");
            assertTrue(!row.isEmpty(), "docs/tck.md has no row for " + rule.id());
            String[] cells = row.substring(2, row.length() - 2).split(" \\| ");
            assertEquals(7, cells.length, rule.id() + " row does not have the table's 7 cells: " + row);
            assertEquals(rule.required() ? "required" : "optional", cells[1], rule.id() + " row: " + row);
            assertEquals(String.join(", ", rule.clauses()), cells[2], rule.id() + " row does not list the clauses Rule.java cites: " + row);
            assertEquals(rule.stochastic(), cells[3].endsWith(", stochastic"), rule.id() + " row's kind does not say what Rule.stochastic() says: " + row);
            assertEquals(broken.getOrDefault(rule, "-"), cells[6], rule.id() + " row does not name its broken provider: " + row);
        }
    }
}
