package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The CANCEL-* rules alone: a cancel at any point stops the write promptly and leaves nothing behind. Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class CancelVerification extends TckBase implements CancelRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected CancelVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
