package io.paimongov.runtime.write;

import io.paimongov.runtime.write.WriteLifecycle.State;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.WriteCancelledException;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

/**
 * Turns whatever a call of the governed write met into the typed error its caller gets, after
 * undoing the write: the cancellation if the write was cancelled (an interruption counts as one),
 * a budget failure as itself, Paimon failing for want of a page ("Error getting first segment") as
 * a {@link ResourceExhaustedException} with Paimon's error as its cause, anything else unchanged.
 * A closed-state error is the caller's mistake and undoes nothing.
 *
 * <p><b>Thread-safety:</b> call inside a call of the write, holding its call lock; keeps no state
 * of its own.
 */
final class WriteFailures {

    private final OpenedWrite w;
    private final WriteRelease release;
    private final WriteCancellation cancellation;

    WriteFailures(OpenedWrite write, WriteRelease release, WriteCancellation cancellation) {
        this.w = write;
        this.release = release;
        this.cancellation = cancellation;
    }

    /**
     * Undoes the write and returns the error to throw; an {@link Error} or a checked exception that
     * is none of the typed ones is thrown from here as it is.
     */
    RuntimeException fail(Throwable t) throws Exception {
        if (t instanceof GovernanceClosedException closed) {
            return closed;
        }
        cancellation.cancelIfInterrupted(t);
        cancellation.recordIfCancelled();
        attachFileError(t);
        // Built before the release, so that it carries the budget's numbers of the moment.
        ResourceExhaustedException denied =
                find(t, ResourceExhaustedException.class) == null && isPageDenied(t) ? pageDenied(t) : null;
        if (w.lifecycle.state() != State.DONE) {
            Exception error = release.release(false);
            if (error != null && error != t) {
                t.addSuppressed(error);
            }
        }
        if (w.context.isCancelled()) {
            return t instanceof WriteCancelledException c ? c : new WriteCancelledException(cancellation.reason(), t);
        }
        ResourceExhaustedException exhausted = find(t, ResourceExhaustedException.class);
        if (exhausted != null) {
            return exhausted;
        }
        if (denied != null) {
            return denied;
        }
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw (Exception) t;
    }

    /** Adds the first data-file I/O error to {@code t} when Paimon's cleanup replaced it with another. */
    private void attachFileError(Throwable t) {
        IOException first = w.files.firstError();
        if (first == null) {
            return;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c == first || Arrays.asList(c.getSuppressed()).contains(first)) {
                return;
            }
        }
        t.addSuppressed(first);
    }

    /**
     * Paimon's sort buffer must have a page to (re)start a writer; when the pool has none it fails
     * with "Error getting first segment", caused by this EOFException. It is the engine refusing
     * memory, so the caller gets it as {@link ResourceExhaustedException}.
     */
    private static boolean isPageDenied(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EOFException && String.valueOf(c.getMessage()).contains("memorySource depleted")) {
                return true;
            }
        }
        return false;
    }

    private ResourceExhaustedException pageDenied(Throwable cause) {
        ResourceExhaustedException denied =
                w.budget.exhausted(
                        "write buffer (a writer needs a page to go on and the engine granted none)", w.context.pool().pageSize());
        denied.initCause(cause);
        return denied;
    }

    /** The first of {@code t} and its causes that is a {@code type}; null when none is. */
    static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }
}
