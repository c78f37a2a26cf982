package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The READ-* rules alone: a governed read is charged to the engine, within its budget, gives the same
 * rows in passes and at once, and leaves nothing when cancelled. Extended like {@link
 * GovernanceVerification}, which holds every subject's rules; see there.
 */
public abstract class ReadVerification extends TckBase implements ReadRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected ReadVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
