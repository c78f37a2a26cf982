package io.paimongov.spi;

import java.util.Optional;

/**
 * The engine's cancel state for one write (a Flink task being cancelled, a Spark task killed).
 * The runtime both polls it and subscribes to it, so an engine may implement either side well and
 * the other trivially. Contract: docs/spi.md, clauses CANCEL.1-CANCEL.3.
 *
 * <p><b>Thread-safety:</b> every method, from any thread. <b>May throw:</b> no (CANCEL.1).
 * <b>Callbacks:</b> a listener runs at most once, on any thread, and never blocks the engine
 * (CANCEL.2, CANCEL.3).
 */
public interface CancellationSignal {

    /** Non-empty, with the engine's reason, once the engine has cancelled the write (CANCEL.1). */
    Optional<String> cancelReason();

    /**
     * Registers {@code listener} to run when the engine cancels; the handle unregisters it (CANCEL.2),
     * so that no listener outlives its write (RES.5).
     */
    AutoCloseable onCancel(Runnable listener);

    /** A signal that never fires: the write is cancelled only through its own token. */
    static CancellationSignal never() {
        return NeverCancelled.INSTANCE;
    }
}

enum NeverCancelled implements CancellationSignal {
    INSTANCE;

    @Override
    public Optional<String> cancelReason() {
        return Optional.empty();
    }

    @Override
    public AutoCloseable onCancel(Runnable listener) {
        return () -> {};
    }
}
