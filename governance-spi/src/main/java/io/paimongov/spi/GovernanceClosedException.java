package io.paimongov.spi;

/**
 * A call on a write, reservation, context or allocator that was already closed (or has failed and
 * released everything); the message names the object and its state (docs/spi.md, clauses ERR.3 and
 * ALLOC.8).
 */
public final class GovernanceClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public GovernanceClosedException(String message) {
        super(message);
    }
}
