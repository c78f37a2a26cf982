package io.paimongov.runtime.write;

import io.paimongov.runtime.write.WriteLifecycle.State;
import io.paimongov.spi.WriteCancelledException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;

/**
 * Cancels one governed write and decides who cleans up: the cancelling thread when the write is
 * idle, otherwise the writing thread at its next check point. An interrupt of the writing thread
 * is a cancel with the reason {@value GovernedTableWrite#INTERRUPTED}.
 *
 * <p>A cancel through {@link #cancel} marks its thread ({@code CANCELLING_HERE}) while the token
 * runs its listeners, so the listener ({@link #onCancel}) knows the caller cleans up itself; a
 * cancel from elsewhere (the engine's signal, {@link ResourceContext#cancel}) starts a short-lived
 * thread that cleans up if the write is idle, unless a call of the write on the cancelling thread
 * saw it (a check point polled the engine's signal): that call undoes the write itself.
 *
 * <p><b>Thread-safety:</b> {@link #cancel} and {@link #onCancel} run on any thread and never wait
 * for the call lock (an idle write is cleaned up only if the lock is free at once);
 * {@link #cancelIfInterrupted} and {@link #throwIfCancelled} run inside a call, holding it.
 */
final class WriteCancellation {

    /** Set while a cancel runs the token on this thread, which then cleans up itself. */
    private static final ThreadLocal<Boolean> CANCELLING_HERE = new ThreadLocal<>();

    private final OpenedWrite w;
    private final WriteRelease release;

    WriteCancellation(OpenedWrite write, WriteRelease release) {
        this.w = write;
        this.release = release;
    }

    /** See {@link GovernedTableWrite#cancel}. */
    boolean cancel(String reason) {
        boolean cancelled = cancelHere(reason);
        cleanUpIfIdle();
        return cancelled;
    }

    private boolean cancelHere(String reason) {
        CANCELLING_HERE.set(Boolean.TRUE);
        try {
            return w.context.token().cancel(reason);
        } finally {
            CANCELLING_HERE.remove();
        }
    }

    /**
     * The token's listener: runs once, on the cancelling thread, and never blocks. Wakes a writing
     * thread that waits for a compaction (the task is interrupted or cancelled, its future
     * completes). A cancel that did not come through {@link #cancel} finds an idle write cleaned up
     * on a short-lived thread of its own; one seen by a call of the write on this thread (its check
     * polled the engine's signal) starts none: the write is not idle, and the call undoes it.
     */
    void onCancel() {
        w.context.compactionExecutor().abort();
        if (CANCELLING_HERE.get() == null && !w.callLock.isHeldByCurrentThread()) {
            Thread cleaner = new Thread(this::cleanUpIfIdle, "paimon-gov-cancel-" + w.context.name());
            cleaner.setDaemon(true);
            cleaner.start();
        }
    }

    private void cleanUpIfIdle() {
        if (w.callLock.isHeldByCurrentThread()) {
            return; // cancelled from inside a call of this write: the call sees it at its next check
        }
        if (w.callLock.tryLock()) {
            try {
                if (w.lifecycle.state() != State.DONE) {
                    release.releaseAfterFailure();
                }
            } finally {
                w.callLock.unlock();
            }
        }
    }

    /**
     * Cancels the write when the calling (writing) thread was interrupted or {@code failure} is an
     * interruption. The interrupt flag stays as it is. Runs inside a call, so the cancel cleans
     * nothing up itself: the call's failure path does.
     */
    void cancelIfInterrupted(Throwable failure) {
        if (w.context.isCancelled()) {
            return;
        }
        if (Thread.currentThread().isInterrupted() || isInterruption(failure)) {
            cancelHere(GovernedTableWrite.INTERRUPTED);
        }
    }

    /**
     * Inside a call that is not a write call (commit, hand-off): when the write was cancelled or
     * this thread interrupted, undoes the write and throws the cancellation.
     */
    void throwIfCancelled() {
        cancelIfInterrupted(null);
        if (w.context.isCancelled()) {
            throw undone(null);
        }
    }

    /**
     * A commit of this write threw and the write was cancelled meanwhile (the commit's own checks
     * stopped it before its snapshot, {@link TrackingFileIO}): the commit was settled, so undoes the
     * write and returns the cancellation to throw, with the commit's error as its cause.
     */
    WriteCancelledException cancelledCommit(Throwable commitError) {
        return undone(commitError);
    }

    private WriteCancelledException undone(Throwable cause) {
        recordIfCancelled();
        if (w.lifecycle.state() != State.DONE) {
            release.releaseAfterFailure();
        }
        WriteCancelledException cancelled = new WriteCancelledException(reason(), cause);
        Exception cleanup = release.takeUnreported();
        if (cleanup != null) {
            cancelled.addSuppressed(cleanup);
        }
        return cancelled;
    }

    /**
     * Counts the cancel in the write's metrics, before a writing thread that saw it releases the
     * write. The token's listener counts it too, but on the cancelling thread, after the token
     * already reads as cancelled: a writing thread can see the cancel, release the write and take
     * the final snapshot in between, which then read {@code cancellations} 0.
     */
    void recordIfCancelled() {
        if (w.context.isCancelled()) {
            w.context.recorder().recordCancelled();
        }
    }

    /** The cancellation as the caller gets it, with the token's reason. */
    WriteCancelledException cancelled() {
        return new WriteCancelledException(reason());
    }

    String reason() {
        return w.context.token().reason().orElse("cancelled");
    }

    private static boolean isInterruption(Throwable t) {
        return WriteFailures.find(t, InterruptedException.class) != null
                || WriteFailures.find(t, ClosedByInterruptException.class) != null
                || WriteFailures.find(t, InterruptedIOException.class) != null;
    }
}
