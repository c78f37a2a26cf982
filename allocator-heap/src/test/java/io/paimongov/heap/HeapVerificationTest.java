package io.paimongov.heap;

import io.paimongov.tck.Capability;
import io.paimongov.tck.GovernanceVerification;

/** The heap allocator runs the whole kit in its own build: its engine cancels and keeps metrics. */
class HeapVerificationTest extends GovernanceVerification {

    HeapVerificationTest() {
        super(HeapGovernanceProvider::new, Capability.ENGINE_CANCELLATION, Capability.ENGINE_METRICS);
    }
}
