package io.paimongov.flink;

import io.paimongov.tck.Capability;
import io.paimongov.tck.GovernanceVerification;

/**
 * The Flink allocator runs the whole kit in its own build, on its standalone engine: a Flink
 * MemoryManager of the budget whose own count the kit reads, a manual cancel and a metrics sink.
 */
class FlinkVerificationTest extends GovernanceVerification {

    FlinkVerificationTest() {
        super(FlinkGovernanceProvider::new, Capability.ENGINE_CANCELLATION, Capability.ENGINE_METRICS);
    }
}
