package io.paimongov.tck;

import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Sets each property's tries from {@link TckSettings}: the kit's knobs, not jqwik's defaults.
 * Examples ({@code @Example}) run once.
 */
public final class TckTries implements AroundPropertyHook {

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        if (context.targetMethod().isAnnotationPresent(Property.class)) {
            TckSettings settings = TckSettings.fromSystemProperties();
            boolean heavy = context.targetMethod().isAnnotationPresent(Heavy.class);
            context.attributes().setTries(heavy ? settings.writeTries() : settings.tries());
        }
        return property.execute();
    }
}
