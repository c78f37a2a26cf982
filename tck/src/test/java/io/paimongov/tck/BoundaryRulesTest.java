package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What {@link BrokenProvidersTest} does not cover of SPILL-8, METRICS-4 and CANCEL-6: the other ways
 * of spilling outside the configured directories, and the reasons these rules are skipped with.
 */
class BoundaryRulesTest {

    private final ClassLoader loader = getClass().getClassLoader();

    @Test
    void aSpillRootBesideTheConfiguredOneFailsSpill8() {
        String message = failed("broken-spill-elsewhere", Rule.SPILL_8);
        assertTrue(message.contains("in the kit's directory ") && message.contains("-of-its-own/paimon-gov-"), message);
    }

    /** Named like nothing of this process's: only the descriptor this process holds on it tells it from another's file. */
    @Test
    void aFileOfTheProvidersOwnInTmpdirFailsSpill8() {
        String message = failed("broken-page-file-in-tmpdir", Rule.SPILL_8);
        assertTrue(message.contains("in java.io.tmpdir: ") && message.contains("broken-page-store-"), message);
    }

    @Test
    void withoutAnEngineCancel6AndMetrics4AreSkippedWithTheirReasons() {
        TckReport report = TckRunner.runDiscovered("no-engine", loader, Set.of(Rule.CANCEL_6, Rule.METRICS_4), null);
        skipped(report, Rule.CANCEL_6, "[CANCEL-6] skipped: the provider has no standalone engine");
        skipped(report, Rule.METRICS_4, "[METRICS-4] skipped: the verification declares no readable engine metrics");
        assertTrue(!report.requiredPassed(), "a provider whose CANCEL-6 was skipped conforms");
    }

    @Test
    void anEngineThatDoesNotCountRegistrationsSkipsCancel6() {
        TckReport report = TckRunner.runDiscovered("uncounted-engine", loader, Set.of(Rule.CANCEL_6), null);
        skipped(report, Rule.CANCEL_6, "[CANCEL-6] skipped: the provider's standalone engine does not count what writes register with it");
    }

    private String failed(String provider, Rule rule) {
        TckReport.RuleResult result = TckRunner.runDiscovered(provider, loader, Set.of(rule), null).rule(rule.id());
        assertEquals(TckReport.Status.FAILED, result.status(), provider + " passed " + rule.id() + ": " + result);
        assertTrue(result.message().startsWith("[" + rule.id() + "] the write created entries outside"), result.message());
        return result.message();
    }

    private static void skipped(TckReport report, Rule rule, String reason) {
        TckReport.RuleResult result = report.rule(rule.id());
        assertEquals(TckReport.Status.SKIPPED, result.status(), result.toString());
        assertTrue(result.message().startsWith(reason), result.message());
    }
}
