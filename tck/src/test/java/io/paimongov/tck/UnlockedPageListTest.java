package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * MEM-16 fails page tracking that is a plain ArrayList without a lock, as it fails a plain HashSet
 * ({@code broken-unlocked-page-set}, in {@code BrokenProviders.FAULTS}).
 */
class UnlockedPageListTest {

    @Test
    void anUnlockedPageListFailsMem16() {
        TckReport report = TckRunner.runDiscovered("broken-unlocked-page-list", getClass().getClassLoader(), Set.of(Rule.MEM_16), null);
        TckReport.RuleResult result = report.rule(Rule.MEM_16.id());
        assertEquals(TckReport.Status.FAILED, result.status(), result.toString());
        assertTrue(result.message().contains("a release was lost"), result.message());
    }
}
