package io.paimongov.spark;

import io.paimongov.tck.Capability;
import io.paimongov.tck.GovernanceVerification;

/**
 * The Spark allocator runs the whole kit in its own build, on its standalone engine: a
 * TaskMemoryManager whose execution memory is the budget and whose own counter the kit reads, a
 * manual cancel and a metrics sink.
 */
class SparkVerificationTest extends GovernanceVerification {

    SparkVerificationTest() {
        super(SparkGovernanceProvider::new, Capability.ENGINE_CANCELLATION, Capability.ENGINE_METRICS);
    }
}
