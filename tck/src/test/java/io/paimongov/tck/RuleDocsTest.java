package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/tck.md lists every rule, with its id as a table cell and whether it is required. */
class RuleDocsTest {

    @Test
    void everyRuleIsDocumented() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "tck.md"));
        for (Rule rule : Rule.values()) {
            String row = docs.lines().filter(l -> l.startsWith("| " + rule.id() + " |")).findFirst().orElse("");
            assertTrue(!row.isEmpty(), "docs/tck.md has no row for " + rule.id());
            assertTrue(row.contains(rule.required() ? "required" : "optional"), rule.id() + " row does not say " + (rule.required() ? "required" : "optional") + ": " + row);
        }
    }
}
