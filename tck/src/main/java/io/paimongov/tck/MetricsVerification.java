package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The METRICS-* rules alone: the write's metrics snapshot is consistent, exact where it says exact, and reaches the engine. Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class MetricsVerification extends TckBase implements MetricsRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected MetricsVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
