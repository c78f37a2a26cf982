package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The WRITE-* rules alone: real Paimon writes through the provider commit exactly the reference model's table, within the budget. Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class WriteVerification extends TckBase implements WriteRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected WriteVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
