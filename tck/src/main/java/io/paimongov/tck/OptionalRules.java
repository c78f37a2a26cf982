package io.paimongov.tck;

import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * Skips an optional rule, with its reason, when the verification does not declare the capability
 * it needs, and a rule of the engine side ({@link EngineRules#NEED_ENGINE}) when the provider has
 * no standalone engine, and CANCEL-6 when the engine does not count registrations ({@link
 * EngineRegistrations#skip}). All are read from a fresh instance of the verification class, before
 * the rule runs; a skipped rule is reported as skipped, never as passed.
 */
public final class OptionalRules implements SkipExecutionHook {

    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
        Verifies verifies = context.findAnnotation(Verifies.class).orElse(null);
        if (verifies != null && verifies.value() == Rule.CANCEL_6) {
            return EngineRegistrations.skip(context);
        }
        if (verifies == null
                || (verifies.value().required() && !EngineRules.NEED_ENGINE.contains(verifies.value()))
                || context.optionalContainerClass().isEmpty()) {
            return SkipResult.doNotSkip();
        }
        Class<?> container = context.optionalContainerClass().get();
        if (!TckBase.class.isAssignableFrom(container)) {
            return SkipResult.doNotSkip();
        }
        TckBase verification = (TckBase) context.newInstance(container);
        Rule rule = verifies.value();
        String reason =
                switch (rule) {
                    case CANCEL_5 -> verification.supports(Capability.ENGINE_CANCELLATION)
                            ? null
                            : "the verification declares no engine-side cancel (Capability.ENGINE_CANCELLATION)";
                    case METRICS_3 -> verification.supports(Capability.ENGINE_METRICS)
                            ? null
                            : "the verification declares no readable engine metrics (Capability.ENGINE_METRICS)";
                    case METRICS_4 -> verification.supports(Capability.ENGINE_METRICS)
                            ? null
                            : "the verification declares no readable engine metrics (Capability.ENGINE_METRICS)";
                    case MEM_11, MEM_12, MEM_13 -> verification.hasStandaloneEngine()
                            ? null
                            : "the provider has no standalone engine (GovernanceProvider.standalone is empty), so the kit"
                                    + " cannot make one tighter than the budget, share it or shrink it";
                    default -> null;
                };
        return reason == null ? SkipResult.doNotSkip() : SkipResult.skip("[" + rule.id() + "] skipped: " + reason);
    }
}
