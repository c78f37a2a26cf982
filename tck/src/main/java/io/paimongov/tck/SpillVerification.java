package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The SPILL-* rules alone: spill stays in its scope and within its byte budget, and goes away on every path. Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class SpillVerification extends TckBase implements SpillRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected SpillVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
