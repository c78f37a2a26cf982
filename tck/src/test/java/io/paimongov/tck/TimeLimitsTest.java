package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each rule's time limit and the run's, as docs/tck.md's "Time limits" table states them. */
class TimeLimitsTest {

    private static final TckSettings DEFAULTS = new TckSettings(50, 3, 20_000, 1_000, 20_000, 0, 0);

    @Test
    void atTheDefaultSizesAnAllocatorRuleHasAMinuteATableRuleThreeAndEachRaceFour() {
        for (Rule rule : Rule.values()) {
            long expected = rule == Rule.MEM_2 || rule == Rule.MEM_16 ? 240
                    : rule == Rule.MEM_13 || !List.of("memory", "discovery").contains(rule.subject()) ? 180
                    : 60;
            assertEquals(expected, TimeLimits.ruleSeconds(rule, method(rule), DEFAULTS), rule.id());
        }
        assertEquals(1800, TimeLimits.runSeconds(allMethods(), DEFAULTS));
    }

    @Test
    void limitsGrowWithTheSizesTheRuleRuns() {
        TckSettings deeper = new TckSettings(2000, 6, 40_000, 1_000, 100_000, 0, 0);
        assertEquals(60 * 2000 / 50, TimeLimits.ruleSeconds(Rule.MEM_1, method(Rule.MEM_1), deeper));
        assertEquals(60, TimeLimits.ruleSeconds(Rule.MEM_3, method(Rule.MEM_3), deeper), "an example that only calls the allocator");
        assertEquals(240 * 5, TimeLimits.ruleSeconds(Rule.MEM_2, method(Rule.MEM_2), deeper));
        assertEquals(180 * 2 * 2, TimeLimits.ruleSeconds(Rule.WRITE_1, method(Rule.WRITE_1), deeper), "write-tries x2, rows x2");
        assertEquals(180 * 2, TimeLimits.ruleSeconds(Rule.SPILL_1, method(Rule.SPILL_1), deeper), "an example that writes: rows x2");
        assertEquals(180 * 20, TimeLimits.ruleSeconds(Rule.CANCEL_1, method(Rule.CANCEL_1), deeper), "max(100, tries) cancels");
        assertEquals(1800 * 40, TimeLimits.runSeconds(allMethods(), deeper), "the largest scale: MEM-1's and CANCEL-1's tries");
        // Smaller than the defaults never shortens a limit.
        TckSettings smaller = new TckSettings(5, 1, 3000, 1_000, 2_000, 0, 0);
        assertEquals(60, TimeLimits.ruleSeconds(Rule.MEM_1, method(Rule.MEM_1), smaller));
        assertEquals(180, TimeLimits.ruleSeconds(Rule.WRITE_1, method(Rule.WRITE_1), smaller));
    }

    @Test
    void givenLimitsReplaceEveryRulesAndTheRuns() {
        TckSettings given = new TckSettings(50, 3, 20_000, 1_000, 20_000, 7, 11);
        for (Rule rule : Rule.values()) {
            assertEquals(7, TimeLimits.ruleSeconds(rule, method(rule), given), rule.id());
        }
        assertEquals(11, TimeLimits.runSeconds(allMethods(), given));
    }

    private static Method method(Rule rule) {
        return Arrays.stream(GovernanceVerification.class.getMethods())
                .filter(m -> m.isAnnotationPresent(Verifies.class) && m.getAnnotation(Verifies.class).value() == rule)
                .findFirst().orElseThrow();
    }

    private static List<Method> allMethods() {
        return Arrays.stream(Rule.values()).map(TimeLimitsTest::method).toList();
    }
}
