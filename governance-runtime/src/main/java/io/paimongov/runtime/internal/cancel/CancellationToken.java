package io.paimongov.runtime.internal.cancel;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.WriteCancelledException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cancel state of one write. {@link #cancel} may be called from any thread, also while a write
 * call is blocked; the write sees it at its next check point (every row, page allocation,
 * spill-file creation and spill block, data-file creation, every 1,024 rows a flush reads, every
 * 256 KiB a file stream of the write reads or writes, compaction task start, {@code
 * prepareCommit}, each manifest file of a commit until its snapshot) and throws {@link
 * WriteCancelledException}. A thread waiting for a compaction wakes
 * because the write's cancel listener interrupts and cancels the compaction tasks.
 *
 * <p>Linked to the engine's {@link CancellationSignal} both ways an engine may offer: the signal's
 * push callback cancels the token, and every check also polls the signal.
 *
 * <p><b>Thread-safety:</b> thread-safe. Listeners run once, on the cancelling thread; they must
 * not block and must not throw (what they throw is logged). The runtime's own listeners only flag,
 * interrupt and hand cleanup to another thread.
 */
public final class CancellationToken implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CancellationToken.class);

    private final CancellationSignal signal;
    private final AtomicReference<String> reason = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final AutoCloseable subscription;

    public CancellationToken(CancellationSignal signal) {
        this.signal = signal;
        this.subscription =
                signal.onCancel(() -> cancel(signal.cancelReason().orElse("cancelled by the engine")));
    }

    /**
     * Cancels the write. The first call wins and runs the listeners; later calls return false.
     *
     * @param why shown in {@link WriteCancelledException}
     */
    public boolean cancel(String why) {
        String text = why == null || why.isBlank() ? "cancelled" : why;
        if (!reason.compareAndSet(null, text)) {
            return false;
        }
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("cancellation listener failed", e);
            }
        }
        return true;
    }

    /** Whether the write was cancelled, by the token or by the engine (polled). */
    public boolean isCancelled() {
        if (reason.get() != null) {
            return true;
        }
        Optional<String> engine = signal.cancelReason();
        if (engine.isPresent()) {
            cancel(engine.get());
            return true;
        }
        return false;
    }

    /** @throws WriteCancelledException when cancelled */
    public void throwIfCancelled() {
        if (isCancelled()) {
            throw new WriteCancelledException(reason.get());
        }
    }

    /**
     * For file streams: an I/O error, so that Paimon unwinds (and removes its partial file) as from
     * any failed write or read.
     *
     * @throws WriteCancelledIOException when cancelled
     */
    public void throwIfCancelledIO() throws WriteCancelledIOException {
        if (isCancelled()) {
            throw new WriteCancelledIOException(reason.get());
        }
    }

    /** The reason, once cancelled. */
    public Optional<String> reason() {
        isCancelled();
        return Optional.ofNullable(reason.get());
    }

    /**
     * Runs {@code listener} when the token is cancelled, at once if it already is. Registration
     * lasts as long as the token.
     */
    public void onCancel(Runnable listener) {
        AtomicBoolean ran = new AtomicBoolean();
        Runnable once =
                () -> {
                    if (ran.compareAndSet(false, true)) {
                        listener.run();
                    }
                };
        listeners.add(once);
        if (reason.get() != null) {
            once.run();
        }
    }

    /** Unsubscribes from the engine signal. Idempotent. */
    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.warn("unsubscribing from the engine's cancel signal failed", e);
        }
    }
}
