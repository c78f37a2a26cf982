package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * A try that proves nothing is neither a pass nor a failure: a rule whose every try was
 * inconclusive is skipped with the reason (jqwik alone would fail it as exhausted), and one with
 * some conclusive tries passes and says how many.
 */
class ConclusiveTriesTest {

    /** Every try proves nothing. */
    public static final class NeverConclusive extends TckBase {
        public NeverConclusive() {
            super(ReferenceProvider::new);
        }

        @Property
        @Heavy
        @Verifies(Rule.MEM_13)
        @AddLifecycleHook(ConclusiveTries.class)
        public void everyTryProvesNothing(@ForAll int ignored) {
            ConclusiveTries.inconclusive("the test's writes needed nothing");
        }
    }

    /** Only the first try proves something (and passes). */
    public static final class FirstTryOnly extends TckBase {
        private int tries;

        public FirstTryOnly() {
            super(ReferenceProvider::new);
        }

        @Property
        @Heavy
        @Verifies(Rule.MEM_13)
        @AddLifecycleHook(ConclusiveTries.class)
        public void onlyTheFirstTryProvesSomething(@ForAll int ignored) {
            if (++tries > 1) {
                ConclusiveTries.inconclusive("a later try needed nothing");
            }
        }
    }

    @Test
    void aRuleNoneOfWhoseTriesProvedAnythingIsSkippedWithTheReason() {
        int tries = TckSettings.fromSystemProperties().writeTries();
        TckReport.RuleResult result = TckRunner.run(NeverConclusive.class, "none", Set.of(Rule.MEM_13)).rule("MEM-13");
        assertEquals(TckReport.Status.SKIPPED, result.status(), result.toString());
        assertTrue(result.message().startsWith("[MEM-13] skipped: none of its " + tries
                + " tries proved anything either way: the test's writes needed nothing"), result.message());
        assertEquals("0 of " + tries + " tries", result.reported().get("conclusive"), result.toString());
    }

    @Test
    void aRuleWithSomeConclusiveTriesPassesAndSaysHowMany() {
        int tries = TckSettings.fromSystemProperties().writeTries();
        TckReport.RuleResult result = TckRunner.run(FirstTryOnly.class, "some", Set.of(Rule.MEM_13)).rule("MEM-13");
        assertEquals(TckReport.Status.PASSED, result.status(), result.toString());
        assertEquals("1 of " + tries + " tries", result.reported().get("conclusive"), result.toString());
    }
}
