package io.paimongov.runtime.orphans;

import java.util.Objects;

/**
 * What a governed write did about orphan files when it opened ({@code
 * governance.orphans.older-than}, docs/configuration.md).
 *
 * @param outcome what happened
 * @param result the clean's result when it ran ({@link Outcome#CLEANED}), else null
 * @param detail why it did not run or what failed; empty when it ran
 */
public record OpeningSweep(Outcome outcome, OrphanFiles.Result result, String detail) {

    /** How the sweep at opening ended. */
    public enum Outcome {
        /** Paimon's clean ran; {@link #result()} says what it removed. */
        CLEANED,
        /** {@code governance.orphans.older-than} is {@code off}. */
        OFF,
        /** Another governed write of the same table is live in this JVM: it swept when it opened. */
        SKIPPED,
        /** The clean failed; the write went on and the error was logged. */
        FAILED
    }

    public OpeningSweep {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(detail, "detail");
    }

    /** Orphan files removed: 0 unless {@link Outcome#CLEANED}. */
    public long filesRemoved() {
        return result == null ? 0 : result.deleted();
    }

    /** Bytes of the orphan files found: 0 unless {@link Outcome#CLEANED}. */
    public long bytesFound() {
        return result == null ? 0 : result.bytes();
    }
}
