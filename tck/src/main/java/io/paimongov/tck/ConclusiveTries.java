package io.paimongov.tck;

import net.jqwik.api.Assume;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.Lifespan;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.lifecycle.Store;
import org.opentest4j.TestAbortedException;

/**
 * For a rule whose try may prove nothing either way (MEM-13: a write that needed no memory after
 * its engine shrank): such a try is discarded ({@link #inconclusive}), never passed or failed; the
 * rule reports {@code conclusive} as "k of n tries" (a try that passed or failed proved something);
 * and a rule none of whose tries proved anything is reported skipped with the reason, not failed
 * as exhausted (jqwik's verdict for a property that discarded every try).
 *
 * <p>jqwik runs the tries of one property one after another; the reason lives as long as the
 * property ({@link Lifespan#PROPERTY}).
 */
public final class ConclusiveTries implements AroundPropertyHook {

    private static final String REASON = ConclusiveTries.class.getName();

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        Store<String> reason = Store.getOrCreate(REASON, Lifespan.PROPERTY, () -> "");
        // Discarded tries are the expected case here, not a sign of a badly filtered generator.
        context.attributes().setMaxDiscardRatio(Integer.MAX_VALUE);
        PropertyExecutionResult result = property.execute();
        context.reporter().publishValue("conclusive", result.countChecks() + " of " + result.countTries() + " tries");
        Rule rule = context.findAnnotation(Verifies.class).map(Verifies::value).orElse(null);
        if (result.countChecks() == 0 && result.countTries() > 0 && !reason.get().isEmpty() && rule != null) {
            return result.mapToAborted(new TestAbortedException("[" + rule.id() + "] skipped: none of its " + result.countTries()
                    + " tries proved anything either way: " + reason.get()));
        }
        return result;
    }

    /** Discards the running try as one that proved nothing, for {@code reason}. */
    static void inconclusive(String reason) {
        Store.<String>get(REASON).update(r -> reason);
        Assume.that(false);
    }
}
