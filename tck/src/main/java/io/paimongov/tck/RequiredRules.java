package io.paimongov.tck;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Fails a required rule that is skipped, with the reason, instead of letting it pass as skipped:
 * a provider conforms only when every required rule passes, and a JUnit run that went green over
 * a skipped required rule (a vendor's Maven build) would say the provider conforms where the
 * {@code tck} command says it does not. A required rule is skipped when it cannot run for this
 * verification ({@link OptionalRules#unmetNeed}: no standalone engine for MEM-11..13, an engine
 * that does not count registrations for CANCEL-6; the rule's body then does not run) or when its
 * body could not judge (MEM-13 with no conclusive try, MEM-16 short of overlapping calls). The
 * failure is a {@link RequiredRuleSkipped}, which the kit's runner reports as the skip it is.
 *
 * <p>The outermost of the kit's hooks around a property, so that it sees what the others made of
 * the rule's result ({@link ConclusiveTries} turns an inconclusive rule into a skip). Stateless.
 */
public final class RequiredRules implements AroundPropertyHook {

    @Override
    public int aroundPropertyProximity() {
        return -100;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        Rule rule = context.findAnnotation(Verifies.class).map(Verifies::value).orElse(null);
        if (rule == null || !rule.required()) {
            return property.execute();
        }
        String unmet = unmetNeed(rule, context);
        if (unmet != null) {
            throw new RequiredRuleSkipped(rule, "[" + rule.id() + "] skipped: " + unmet, null);
        }
        PropertyExecutionResult result = property.execute();
        if (result.status() != PropertyExecutionResult.Status.ABORTED) {
            return result;
        }
        Throwable abort = result.throwable().orElse(null);
        String message = abort == null ? null : abort.getMessage();
        String line = message != null && message.startsWith("[" + rule.id() + "] skipped: ")
                ? message
                : "[" + rule.id() + "] skipped: " + (message == null ? "the rule was aborted" : message);
        return result.mapToFailed(new RequiredRuleSkipped(rule, line, abort));
    }

    /** {@link OptionalRules#unmetNeed} for a fresh instance of the verification; null outside one. */
    private static String unmetNeed(Rule rule, LifecycleContext context) {
        Class<?> container = context.optionalContainerClass().orElse(null);
        if (container == null || !TckBase.class.isAssignableFrom(container)) {
            return null;
        }
        return OptionalRules.unmetNeed(rule, (TckBase) context.newInstance(container));
    }
}
