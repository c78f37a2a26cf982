package io.paimongov.offheap;

import io.paimongov.tck.Capability;
import io.paimongov.tck.GovernanceVerification;

/**
 * The off-heap allocator runs the whole kit in its own build, on its standalone engine: a
 * RootAllocator of the budget whose own counter the kit reads, a manual cancel and a metrics sink.
 */
class OffheapVerificationTest extends GovernanceVerification {

    OffheapVerificationTest() {
        super(OffheapGovernanceProvider::new, Capability.ENGINE_CANCELLATION, Capability.ENGINE_METRICS);
    }
}
