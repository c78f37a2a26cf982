package io.paimongov.allocator.support.standalone;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link CancellationSignal} that an engine fires with {@link #cancel}: for engines that are
 * plain Java services. Pass it in the {@link EngineEnvironment} under {@code
 * CancellationSignal.class}; providers that honour it (heap) link every write opened with it.
 *
 * <p>Thread-safe. The first {@link #cancel} wins; listeners run on the cancelling thread, once.
 */
public final class ManualCancellation implements CancellationSignal {

    private final AtomicReference<String> reason = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** A signal that has not fired. */
    public ManualCancellation() {}

    /** Fires the signal; returns false when it had fired already. */
    public boolean cancel(String why) {
        if (!reason.compareAndSet(null, why == null ? "cancelled by the engine" : why)) {
            return false;
        }
        listeners.forEach(Runnable::run);
        return true;
    }

    @Override
    public Optional<String> cancelReason() {
        return Optional.ofNullable(reason.get());
    }

    @Override
    public AutoCloseable onCancel(Runnable listener) {
        listeners.add(listener);
        if (reason.get() != null) {
            listener.run();
        }
        return () -> listeners.remove(listener);
    }

    /**
     * Listeners registered with {@link #onCancel} whose handle was not closed yet: what a standalone
     * engine reports as its cancel listeners ({@link StandaloneEngine#registrations()}, RES.5).
     */
    public int listenerCount() {
        return listeners.size();
    }
}
