package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * A JUnit run of a verification (a vendor's Maven build) fails where the kit's runner reports the
 * provider not conforming: a required rule that cannot run, or whose body could not judge, fails
 * the test with the reason, and the runner reports the same rule skipped with the same line. An
 * optional rule without its capability is still only skipped.
 */
class RequiredRulesTest {

    /** The MEM rules of the reference provider without its standalone engine. */
    public static final class NoEngineMemory extends MemoryVerification {
        public NoEngineMemory() {
            super(BrokenProviders.NoEngine::new);
        }
    }

    /** The CANCEL rules of the reference provider, declaring no capability. */
    public static final class NoCapabilityCancel extends CancelVerification {
        public NoCapabilityCancel() {
            super(ReferenceProvider::new);
        }
    }

    @Test
    void aRequiredRuleThatCannotRunFailsAJUnitRunAndTheRunnerReportsItSkipped() throws Exception {
        Outcome junit = junit(NoEngineMemory.class, Rule.MEM_11);
        assertEquals(TestExecutionResult.Status.FAILED, junit.status(), junit.toString());
        assertTrue(junit.message().startsWith("[MEM-11] skipped: the provider has no standalone engine (GovernanceProvider.standalone is empty)"),
                junit.message());
        assertTrue(junit.message().contains("MEM-11 is required: a provider conforms only when every required rule passes"), junit.message());

        TckReport.RuleResult runner = TckRunner.run(NoEngineMemory.class, "no-engine", Set.of(Rule.MEM_11)).rule("MEM-11");
        assertEquals(TckReport.Status.SKIPPED, runner.status(), runner.toString());
        assertEquals(junit.message().lines().findFirst().orElseThrow(), runner.message());
    }

    /** MEM-13 none of whose tries proved anything: skipped by the runner, a failure of the JUnit run. */
    @Test
    void aRequiredRuleWhoseBodyCouldNotJudgeFailsAJUnitRun() throws Exception {
        Outcome junit = junit(ConclusiveTriesTest.NeverConclusive.class, Rule.MEM_13);
        assertEquals(TestExecutionResult.Status.FAILED, junit.status(), junit.toString());
        assertTrue(junit.message().startsWith("[MEM-13] skipped: none of its "), junit.message());
        assertTrue(junit.message().contains("MEM-13 is required"), junit.message());
    }

    @Test
    void anOptionalRuleWithoutItsCapabilityIsOnlySkipped() throws Exception {
        Outcome junit = junit(NoCapabilityCancel.class, Rule.CANCEL_5);
        assertEquals(null, junit.status(), junit.toString());
        assertEquals("[CANCEL-5] skipped: the verification declares no engine-side cancel (Capability.ENGINE_CANCELLATION)", junit.message());
    }

    /** How the JUnit Platform ended a rule's test: its status and message, or a null status and the reason when skipped. */
    private record Outcome(TestExecutionResult.Status status, String message) {}

    private static Outcome junit(Class<?> verification, Rule rule) throws Exception {
        Method method = null;
        for (Method m : verification.getMethods()) {
            Verifies v = m.getAnnotation(Verifies.class);
            if (v != null && v.value() == rule) {
                method = m;
            }
        }
        assertNotNull(method, verification + " has no method for " + rule.id());
        Map<String, Outcome> ended = new ConcurrentHashMap<>();
        String name = method.getName();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                if (id.isTest() || id.getDisplayName().contains(name)) {
                    ended.put("result", new Outcome(null, reason));
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest()) {
                    ended.put("result", new Outcome(result.getStatus(), result.getThrowable().map(Throwable::getMessage).orElse("")));
                }
            }
        };
        LauncherFactory.create().execute(
                LauncherDiscoveryRequestBuilder.request().selectors(DiscoverySelectors.selectMethod(verification, method)).build(), listener);
        Outcome outcome = ended.get("result");
        assertNotNull(outcome, "the JUnit Platform did not run " + verification.getSimpleName() + "#" + name);
        return outcome;
    }
}
