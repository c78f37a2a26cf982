package io.paimongov.offheap;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.tck.GovernanceVerification;

/**
 * The off-heap allocator runs the whole kit in its own build, on its standalone engine: a
 * RootAllocator of the budget whose own counter the kit reads, a manual cancel and a metrics sink.
 */
class OffheapVerificationTest extends GovernanceVerification {

    @Override
    protected GovernanceProvider provider() {
        return new OffheapGovernanceProvider();
    }

    @Override
    protected boolean supportsEngineCancellation() {
        return true;
    }

    @Override
    protected boolean supportsEngineMetrics() {
        return true;
    }
}
