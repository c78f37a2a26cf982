package io.paimongov.tck;

/** A correct provider passes every required rule; the optional ones it declares run too. */
class ReferenceVerificationTest extends GovernanceVerification {

    ReferenceVerificationTest() {
        super(ReferenceProvider::new, Capability.ENGINE_CANCELLATION, Capability.ENGINE_METRICS);
    }
}
