package io.paimongov.runtime.write;

import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.runtime.write.OpenedWrite.State;
import java.util.List;
import org.apache.paimon.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives everything of one governed write back, once, whether it ends by close, failure or cancel.
 *
 * <p>The order matters, because Paimon uses the pages until its write is closed: running
 * compactions are interrupted and queued ones cancelled (after a failure or cancel only); the
 * Paimon write is closed (twice if the first close throws) and the compaction threads end;
 * prepared but uncommitted messages are aborted and the data files this write created and nobody
 * took over are deleted; the estimate reservations are returned; then {@link
 * ResourceContext#close()} deletes the spill scope, returns the pages and closes the engine's
 * resources. Every step runs even when an earlier one threw; the first error is returned with the
 * later ones suppressed.
 *
 * <p><b>Thread-safety:</b> call holding the write's call lock ({@link OpenedWrite#callLock}); the
 * state it changes is guarded by that lock. It runs with the interrupt flag cleared (waiting for
 * compaction threads and closing files fail at once on an interrupted thread) and sets it again
 * before it returns.
 */
final class WriteRelease {

    private static final Logger LOG = LoggerFactory.getLogger(WriteRelease.class);

    private final OpenedWrite w;

    WriteRelease(OpenedWrite write) {
        this.w = write;
    }

    /**
     * Runs the release sequence.
     *
     * @param orderly false after a failure or cancel: running compactions are interrupted first
     * @return the first error met; every step ran regardless
     */
    Exception release(boolean orderly) {
        boolean interrupted = Thread.interrupted();
        try {
            return releaseAll(orderly);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The release after a failure or cancel whose caller has an error of its own: this one is logged. */
    void releaseAfterFailure() {
        Exception error = release(false);
        if (error != null) {
            LOG.warn("cleaning up write '{}' after a failure or cancel met an error", w.context.name(), error);
        }
    }

    private Exception releaseAll(boolean orderly) {
        w.state = State.DONE;
        w.context.recorder().recordPaimon(w.paimonMetrics.read());
        if (!orderly || w.context.isCancelled()) {
            w.context.compactionExecutor().abort();
        }
        Exception first = closePaimon(null);
        for (Handoff h : w.pending) {
            first = h.abortIfOwned(first);
        }
        w.pending.clear();
        first = deleteFiles(w.fileIO, w.fileIO.uncommitted(), first);
        w.sorted.close();
        w.writers.releaseAll();
        w.fixed.forEach(MemoryReservation::close);
        try {
            w.context.close();
        } catch (RuntimeException e) {
            first = add(first, e);
        }
        return first;
    }

    private Exception closePaimon(Exception first) {
        if (w.paimonClosed) {
            return first;
        }
        try {
            w.write.close();
        } catch (Exception e1) {
            try {
                w.write.close();
                LOG.warn("closing Paimon's write of '{}' failed once; the second close finished it", w.context.name(), e1);
            } catch (Exception e2) {
                e1.addSuppressed(e2);
                first = add(first, e1);
            }
        }
        w.paimonClosed = true;
        w.context.compactionExecutor().stop(30_000);
        return first;
    }

    /** Deletes data files that exist still; Paimon's own cleanup has usually removed them. */
    static Exception deleteFiles(TrackingFileIO fileIO, List<Path> paths, Exception first) {
        for (Path path : paths) {
            try {
                fileIO.delete(path, false);
            } catch (Exception e) {
                first = add(first, e);
            }
        }
        return first;
    }

    /** {@code first}, or {@code next} when there is no first yet; a later error is suppressed in the first. */
    static Exception add(Exception first, Exception next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
