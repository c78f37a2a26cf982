package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The COMPACT-* rules alone: parallel compaction keeps each bucket serial and stays within its threads. Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class CompactionVerification extends TckBase implements CompactionRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected CompactionVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
