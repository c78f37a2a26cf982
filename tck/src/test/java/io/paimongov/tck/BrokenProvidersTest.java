package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
                    boolean hangs = BrokenProviders.HANGS.contains(fault.getKey());
                    TckReport.RuleResult result;
                    try {
                        result = BrokenWriteProviders.MAY_CRASH.contains(fault.getKey())
                                ? OwnJvm.run(fault.getKey(), rule)
                                : TckRunner.runDiscovered(fault.getKey(), loader, Set.of(rule), null).rule(rule.id());
                    } finally {
                        if (hangs) {
                            letTheHungRulesGo();
                        }
                    }
                    // A time-out or an exception of its own is not the fault's verdict: the status and the
                    // fragment only the fault gives tell them apart.
                    assertEquals(hangs ? TckReport.Status.TIMED_OUT : TckReport.Status.FAILED, result.status(),
                            fault.getKey() + " on " + rule.id() + ": " + result);
                    String m = result.message();
                    assertTrue(m.startsWith("[" + rule.id() + "] "), "message: " + m);
                    assertTrue(m.contains(" (if this fails, check: "), "message: " + m);
                    assertTrue(m.contains("contract: docs/spi.md " + String.join(", ", rule.clauses())), "message: " + m);
                    String fragment = fault.getValue().fragment();
                    if (fragment != null) {
                        assertTrue(m.contains(fragment), "the message lacks the fault's fragment '" + fragment + "': " + m);
                    }
                    if (fragment == null || !fragment.startsWith("threw ")) {
                        assertTrue(!m.startsWith("[" + rule.id() + "] threw "), "the rule failed on an exception, not on a check: " + m);
                    }
                    String clause = fault.getValue().clause();
                    if (clause != null) {
                        assertTrue(cited(m).contains(clause), "the message does not cite " + clause + ": " + m);
                    }
                }));
    }

    /** The clauses the message's first line cites after {@code contract: docs/spi.md }. */
    private static List<String> cited(String message) {
        String line = message.lines().findFirst().orElse("");
        int at = line.lastIndexOf("contract: docs/spi.md ");
        if (at < 0) {
            return List.of();
        }
        String list = line.substring(at + "contract: docs/spi.md ".length());
        return List.of(list.substring(0, list.lastIndexOf(')')).split(", "));
    }

    /** Lets the rule threads a hang left behind end, and waits for them, so they do not run on into later tests. */
    static void letTheHungRulesGo() throws InterruptedException {
        BrokenProviders.BlocksForever.letGo();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("tck-rule-")) {
                t.join(60_000);
            }
        }
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
        Set<Rule> rules = Set.of(Rule.MEM_2, Rule.MEM_6, Rule.CANCEL_3, Rule.SPILL_2, Rule.MEM_14, Rule.MEM_15, Rule.MEM_16, Rule.MEM_17);
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
