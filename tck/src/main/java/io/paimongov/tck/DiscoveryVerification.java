package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The DISCOVERY-* rules alone: the provider is found by name and refuses keys of its own it does not know. Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class DiscoveryVerification extends TckBase implements DiscoveryRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected DiscoveryVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
