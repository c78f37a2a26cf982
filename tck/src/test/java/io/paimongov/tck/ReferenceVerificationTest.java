package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;

/** A correct provider passes every required rule; the optional ones it declares run too. */
class ReferenceVerificationTest extends GovernanceVerification {

    @Override
    protected GovernanceProvider provider() {
        return new ReferenceProvider();
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
