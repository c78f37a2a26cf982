package io.paimongov.nativehost;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.paimongov.tck.Capability;
import io.paimongov.tck.GovernanceVerification;
import org.junit.jupiter.api.BeforeAll;

/**
 * The native provider runs the whole kit in its own build, on the reference host built into its
 * JNI library (src/main/c/pg_reference_host.c): every page and reservation crosses the C ABI, the
 * host's own counter is the engine's, and its cancel the engine's. The host has no metric system
 * the kit can read, so METRICS-3 and METRICS-4 (optional) are skipped.
 */
class NativeVerificationTest extends GovernanceVerification {

    NativeVerificationTest() {
        super(NativeGovernanceProvider::new, Capability.ENGINE_CANCELLATION);
    }

    @BeforeAll
    static void needsTheLibrary() {
        assumeTrue(NativeLibrary.available(), NativeLibrary::failure);
    }
}
