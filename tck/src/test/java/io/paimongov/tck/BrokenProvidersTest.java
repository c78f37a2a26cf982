package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The kit proves itself: each broken provider must fail the rule that names its fault, with that
 * rule's message; the correct reference provider must pass the same rule.
 */
class BrokenProvidersTest {

    private final ClassLoader loader = getClass().getClassLoader();

    @org.junit.jupiter.api.AfterAll
    static void endTheLeakedThreads() {
        BrokenProviders.ThreadLeak.RELEASE.countDown();
    }

    @TestFactory
    Stream<DynamicTest> eachBrokenProviderFailsTheRuleThatNamesItsFault() {
        return BrokenProviders.FAULTS.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(fault -> DynamicTest.dynamicTest(fault.getKey() + " fails " + fault.getValue().rule().id(), () -> {
                    Rule rule = fault.getValue().rule();
                    TckReport.RuleResult result = BrokenWriteProviders.MAY_CRASH.contains(fault.getKey())
                            ? OwnJvm.run(fault.getKey(), rule)
                            : TckRunner.runDiscovered(fault.getKey(), loader, Set.of(rule), null).rule(rule.id());
                    assertEquals(TckReport.Status.FAILED, result.status(), fault.getKey() + " passed " + rule.id() + ": " + result);
                    assertTrue(result.message().startsWith("[" + rule.id() + "] "), "message: " + result.message());
                    assertTrue(result.message().contains("if this fails, check: " + rule.ifFails()), "message: " + result.message());
                    assertTrue(result.message().contains("contract: docs/spi.md " + String.join(", ", rule.clauses())), "message: " + result.message());
                    String fragment = fault.getValue().fragment();
                    assertTrue(fragment == null || result.message().contains(fragment), "message lacks '" + fragment + "': " + result.message());
                }));
    }

    @TestFactory
    Stream<DynamicTest> theReferenceProviderPassesEachOfThoseRules() {
        return BrokenProviders.FAULTS.values().stream()
                .map(BrokenProviders.Fault::rule)
                .distinct()
                .sorted()
                .map(rule -> DynamicTest.dynamicTest("reference passes " + rule.id(), () -> {
                    TckReport report = TckRunner.runDiscovered("reference", loader, Set.of(rule), null);
                    assertEquals(TckReport.Status.PASSED, report.rule(rule.id()).status(), report.rule(rule.id()).toString());
                }));
    }

    @Test
    void aProviderWithoutAnEngineIsJudgedByItsOwnCounters() {
        Set<Rule> rules = Set.of(Rule.MEM_2, Rule.MEM_6, Rule.CANCEL_3, Rule.SPILL_2);
        TckReport report = TckRunner.runDiscovered("no-engine", loader, rules, null);
        for (Rule rule : rules) {
            assertEquals(TckReport.Status.PASSED, report.rule(rule.id()).status(), report.rule(rule.id()).toString());
        }
    }

    @Test
    void theEngineRulesAreSkippedWithTheirReasonWhenThereIsNoEngine() {
        Set<Rule> rules = Set.of(Rule.MEM_11, Rule.MEM_12, Rule.MEM_13);
        TckReport report = TckRunner.runDiscovered("no-engine", loader, rules, null);
        for (Rule rule : rules) {
            TckReport.RuleResult result = report.rule(rule.id());
            assertEquals(TckReport.Status.SKIPPED, result.status(), result.toString());
            assertTrue(result.message().startsWith("[" + rule.id() + "] skipped: the provider has no standalone engine"), result.message());
        }
        assertTrue(!report.requiredPassed(), "a provider whose required rules were skipped conforms");
    }

    @Test
    void optionalRulesAreSkippedWithTheirReasonNeverPassed() {
        TckReport report = TckRunner.runDiscovered("no-engine", loader, Set.of(Rule.CANCEL_5, Rule.METRICS_3), null);
        for (Rule rule : Set.of(Rule.CANCEL_5, Rule.METRICS_3)) {
            TckReport.RuleResult result = report.rule(rule.id());
            assertEquals(TckReport.Status.SKIPPED, result.status(), result.toString());
            assertTrue(result.message().startsWith("[" + rule.id() + "] skipped: the verification declares no"), result.message());
        }
    }
}
