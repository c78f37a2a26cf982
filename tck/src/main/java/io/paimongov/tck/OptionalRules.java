package io.paimongov.tck;

import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * Skips an optional rule, with its reason, when the verification does not declare the capability
 * it needs; read from a fresh instance of the verification class, before the rule runs. A skipped
 * rule is reported as skipped, never as passed. A required rule that cannot run is not skipped
 * here: {@link RequiredRules} fails it, so that a vendor's build fails where the kit's runner
 * reports the provider not conforming.
 */
public final class OptionalRules implements SkipExecutionHook {

    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
        Verifies verifies = context.findAnnotation(Verifies.class).orElse(null);
        if (verifies == null || verifies.value().required() || context.optionalContainerClass().isEmpty()) {
            return SkipResult.doNotSkip();
        }
        Class<?> container = context.optionalContainerClass().get();
        if (!TckBase.class.isAssignableFrom(container)) {
            return SkipResult.doNotSkip();
        }
        Rule rule = verifies.value();
        String reason = unmetNeed(rule, (TckBase) context.newInstance(container));
        return reason == null ? SkipResult.doNotSkip() : SkipResult.skip("[" + rule.id() + "] skipped: " + reason);
    }

    /**
     * Why {@code rule} cannot run for {@code verification}: a capability the verification does not
     * declare (CANCEL-5, METRICS-3, METRICS-4), no standalone engine (MEM-11..13, CANCEL-6), or an
     * engine that does not count registrations (CANCEL-6); null when it can run.
     */
    static String unmetNeed(Rule rule, TckBase verification) {
        return switch (rule) {
            case CANCEL_5 -> verification.supports(Capability.ENGINE_CANCELLATION)
                    ? null
                    : "the verification declares no engine-side cancel (Capability.ENGINE_CANCELLATION)";
            case METRICS_3, METRICS_4 -> verification.supports(Capability.ENGINE_METRICS)
                    ? null
                    : "the verification declares no readable engine metrics (Capability.ENGINE_METRICS)";
            case MEM_11, MEM_12, MEM_13 -> verification.hasStandaloneEngine()
                    ? null
                    : "the provider has no standalone engine (GovernanceProvider.standalone is empty), so the kit"
                            + " cannot make one tighter than the budget, share it or shrink it";
            case CANCEL_6 -> EngineRegistrations.unmetNeed(verification);
            default -> null;
        };
    }
}
