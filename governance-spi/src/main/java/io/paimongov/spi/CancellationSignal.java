package io.paimongov.spi;

import java.util.Optional;

/**
 * The engine's cancel state for one write (a Flink task being cancelled, a Spark task killed).
 * The runtime both polls it (at every check point) and subscribes to it, so an engine may
 * implement either side well and the other trivially.
 *
 * <p><b>Thread-safety:</b> all methods are called from any thread. <b>Callbacks:</b> a listener
 * given to {@link #onCancel} may be run on any thread, at most once; it only flags the write and
 * wakes blocked waits, never blocks, never throws.
 */
public interface CancellationSignal {

    /** Non-empty, with the engine's reason, once the engine has cancelled the write. */
    Optional<String> cancelReason();

    /**
     * Registers {@code listener} to run when the engine cancels; runs it at once when already
     * cancelled. The returned handle unregisters it; closing it twice is harmless.
     */
    AutoCloseable onCancel(Runnable listener);

    /** A signal that never fires: the write is cancelled only through its own token. */
    static CancellationSignal never() {
        return NeverCancelled.INSTANCE;
    }

    /** A signal an engine fires by hand, for engines that are plain Java services. */
    static ManualCancellation manual() {
        return new ManualCancellation();
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
