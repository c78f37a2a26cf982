package com.example.governance;

import io.paimongov.tck.Capability;
import io.paimongov.tck.GovernanceVerification;

/** The whole conformance kit against the frame pool provider; its engine cancels and keeps metrics. */
class FramePoolVerificationTest extends GovernanceVerification {

    FramePoolVerificationTest() {
        super(FramePoolProvider::new, Capability.ENGINE_CANCELLATION, Capability.ENGINE_METRICS);
    }
}
