package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The MEM-* rules alone: the allocator's accounting, pages, lifecycle and releases on the provider's SegmentAllocator directly, and the engine side (an engine tighter than the budget, shared, or shrunk mid-write). Extended like {@link GovernanceVerification}, which holds every
 * subject's rules; see there.
 */
public abstract class MemoryVerification extends TckBase implements EngineRules {

    /**
     * @param provider makes the provider under test; called once per use
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected MemoryVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
