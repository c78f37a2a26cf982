package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The kit proves itself: each broken provider must fail the rule that names its fault, with that
 * rule's message, its clause and the fragment only its fault gives, alone and in a full run; the
 * correct reference provider must pass the same rule.
 *
 * <p>A full run of the kit per broken provider takes from half a minute to, for the slowest
 * faults, the rule time limit times the rules they fail; so the full runs of every build are those
 * of the providers whose fault depends on state carried from use to use ({@link
 * BrokenProviders#CARRIES_STATE}), and {@value #FULL_RUNS}{@code =all} runs every provider's.
 */
class BrokenProvidersTest {

    /** Which broken providers also run through the whole kit: {@code stateful} (the default) or {@code all}. */
    static final String FULL_RUNS = "governance.tck.selftest.full-runs";

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
                                ? inOwnJvm(fault.getKey(), fault.getValue(), false)
                                : TckRunner.runDiscovered(fault.getKey(), loader, Set.of(rule), null).rule(rule.id());
                    } finally {
                        if (hangs) {
                            letTheHungRulesGo();
                        }
                    }
                    assertFailsForItsFault(fault.getKey(), fault.getValue(), result, hangs);
                }));
    }

    /**
     * Order-free verdicts: in a run of every rule, the rules before the fault's own leave the
     * provider as they found it (each rule makes its own provider instances and engines), so the
     * fault's rule fails as it does alone, for the same reason.
     */
    @TestFactory
    Stream<DynamicTest> eachBrokenProviderFailsItsRuleInAFullRunToo() {
        boolean all = fullRunsOfAll();
        return BrokenProviders.FAULTS.entrySet().stream()
                // A hang would meet every rule that allocates, each at its time limit: its one rule is enough.
                .filter(fault -> !BrokenProviders.HANGS.contains(fault.getKey()))
                .filter(fault -> all || BrokenProviders.CARRIES_STATE.contains(fault.getKey()))
                .sorted(Map.Entry.comparingByKey())
                .map(fault -> DynamicTest.dynamicTest(fault.getKey() + " fails " + fault.getValue().rule().id() + " in a full run", () -> {
                    Rule rule = fault.getValue().rule();
                    TckReport.RuleResult result = BrokenWriteProviders.MAY_CRASH.contains(fault.getKey())
                            ? inOwnJvm(fault.getKey(), fault.getValue(), true)
                            : TckRunner.runDiscovered(fault.getKey(), loader, Set.of(), null).rule(rule.id());
                    assertFailsForItsFault(fault.getKey(), fault.getValue(), result, false);
                }));
    }

    /**
     * A provider whose pages change under Paimon may make the write fail before it commits (a
     * length read from a zeroed page, and Paimon throws): the rule fails, but the message says
     * only that the write did not commit, which proves the rule, not the reason. Such a run, like
     * a crash ({@link OwnJvm}), is made again; here 4 runs in 10 of {@code broken-wipes-live-pages}
     * and 2 in 10 of {@code broken-zeroes-first-page} ended that way.
     */
    private static final int CORRUPTION_ATTEMPTS = 8;

    private static TckReport.RuleResult inOwnJvm(String provider, BrokenProviders.Fault fault, boolean everyRule) throws Exception {
        TckReport.RuleResult result = null;
        for (int attempt = 1; attempt <= CORRUPTION_ATTEMPTS; attempt++) {
            result = everyRule ? OwnJvm.runInFullRun(provider, fault.rule()) : OwnJvm.run(provider, fault.rule());
            boolean writeFailedFirst = result.status() == TckReport.Status.FAILED
                    && !result.message().contains(fault.fragment())
                    && result.message().contains("did not commit: outcome FAILED");
            if (!writeFailedFirst) {
                return result;
            }
        }
        return result;
    }

    @Test
    void everyProviderThatCarriesStateIsABrokenProviderOfTheKit() {
        assertTrue(BrokenProviders.FAULTS.keySet().containsAll(BrokenProviders.CARRIES_STATE),
                "CARRIES_STATE names providers FAULTS does not: " + BrokenProviders.CARRIES_STATE);
    }

    /**
     * The rule failed (not skipped, not passed; timed out for a hang of {@link BrokenProviders#HANGS}),
     * with its own message shape, and for the reason of the fault: the fragment only that fault
     * gives and its clause among those cited, which a timeout or an unrelated exception does not give.
     */
    static void assertFailsForItsFault(String provider, BrokenProviders.Fault fault, TckReport.RuleResult result, boolean hangs) {
        Rule rule = fault.rule();
        assertEquals(hangs ? TckReport.Status.TIMED_OUT : TckReport.Status.FAILED, result.status(), provider + " on " + rule.id() + ": " + result);
        String message = result.message();
        assertTrue(message.startsWith("[" + rule.id() + "] "), "message: " + message);
        assertTrue(message.contains(fault.fragment()),
                provider + " failed " + rule.id() + " but not for its fault (no '" + fault.fragment() + "'): " + message);
        if (!hangs) {
            assertFalse(message.startsWith("[" + rule.id() + "] did not finish within"), provider + " failed " + rule.id() + " by timing out: " + message);
        }
        if (!fault.fragment().startsWith("threw ")) {
            assertFalse(message.startsWith("[" + rule.id() + "] threw "), "the rule failed on an exception, not on a check: " + message);
        }
        assertTrue(message.contains(" (if this fails, check: "), "message: " + message);
        assertTrue(message.contains("contract: docs/spi.md " + String.join(", ", rule.clauses())), "message: " + message);
        assertTrue(cited(message).contains(fault.clause()), "the message does not cite " + fault.clause() + ": " + message);
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

    private static boolean fullRunsOfAll() {
        String value = System.getProperty(FULL_RUNS, "stateful").strip().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "stateful", "" -> false;
            case "all" -> true;
            default -> throw new IllegalArgumentException("'" + FULL_RUNS + "' = '" + value + "' must be 'stateful' or 'all'");
        };
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
