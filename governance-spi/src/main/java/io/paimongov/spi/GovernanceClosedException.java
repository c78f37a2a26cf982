package io.paimongov.spi;

/**
 * A call on a write, reservation or allocator that was already closed (or has failed and released
 * everything). The message names the object and its state.
 */
public final class GovernanceClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public GovernanceClosedException(String message) {
        super(message);
    }
}
