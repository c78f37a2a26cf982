package io.paimongov.flink;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.tck.GovernanceVerification;

/**
 * The Flink allocator runs the whole kit in its own build, on its standalone engine: a Flink
 * MemoryManager of the budget whose own count the kit reads, a manual cancel and a metrics sink.
 */
class FlinkVerificationTest extends GovernanceVerification {

    @Override
    protected GovernanceProvider provider() {
        return new FlinkGovernanceProvider();
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
