package io.paimongov.runtime.write;

/**
 * Where one governed write is in its life: {@link State#OPEN} (rows and commits are taken), {@link
 * State#PREPARED} (a batch write prepared its one commit), {@link State#DONE} (released: closed,
 * failed, cancelled or never opened). It only moves forward.
 *
 * <p><b>Thread-safety:</b> the state is volatile: the cancel path reads it without the write's call
 * lock. The write moves it holding the call lock, or on the release, which runs once.
 */
final class WriteLifecycle {

    enum State {
        OPEN,
        PREPARED,
        DONE
    }

    private volatile State state = State.OPEN;

    State state() {
        return state;
    }

    /** Whether the write was released (or failed to open). */
    boolean isDone() {
        return state == State.DONE;
    }

    /** A batch write prepared its commit. */
    void prepared() {
        state = State.PREPARED;
    }

    /** The write is released, or failed to open. */
    void done() {
        state = State.DONE;
    }
}
