package io.paimongov.heap;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.tck.GovernanceVerification;

/** The heap allocator runs the whole kit in its own build: its engine cancels and keeps metrics. */
class HeapVerificationTest extends GovernanceVerification {

    @Override
    protected GovernanceProvider provider() {
        return new HeapGovernanceProvider();
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
