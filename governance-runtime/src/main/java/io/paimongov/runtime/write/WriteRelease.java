package io.paimongov.runtime.write;

import io.paimongov.spi.CleanupException;
import java.util.List;
import org.apache.paimon.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives everything of one governed write back, once, whether it ends by close, failure or cancel.
 *
 * <p>The order matters, because Paimon uses the pages until its write is closed: Paimon's metrics
 * are read into the snapshot (not after a cancel, which keeps those of the last prepareCommit); running
 * compactions are interrupted and queued ones cancelled (after a failure or cancel only); the
 * Paimon write is closed (twice if the first close throws) and the compaction threads end;
 * prepared but uncommitted messages are aborted and the data files this write created and nobody
 * took over are deleted; the estimate reservations are returned; then {@link
 * ResourceContext#close()} deletes the spill scope, returns the pages and closes the engine's
 * resources. Every step runs even when an earlier one threw; the failed steps are returned as one
 * {@link CleanupException} (each step's error suppressed in it) and counted in the snapshot's
 * {@code cleanupFailures}.
 *
 * <p><b>Thread-safety:</b> call holding the write's call lock ({@link OpenedWrite#callLock}); the
 * state it changes is guarded by that lock. It runs with the interrupt flag cleared (waiting for
 * compaction threads and closing files fail at once on an interrupted thread) and sets it again
 * before it returns.
 */
final class WriteRelease {

    private static final Logger LOG = LoggerFactory.getLogger(WriteRelease.class);

    private final OpenedWrite w;
    /** Guarded by the write's call lock: see {@link #takeUnreported}. */
    private Exception unreported;
    /** Whether Paimon's write was closed (a second release does not close it again). Guarded by the call lock. */
    private boolean paimonClosed;

    WriteRelease(OpenedWrite write) {
        this.w = write;
    }

    /**
     * Runs the release sequence.
     *
     * @param orderly false after a failure or cancel: running compactions are interrupted first
     * @return the failed steps, or null; every step ran regardless
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

    /**
     * The release after a cancel, run where no caller of the write is there to receive its error
     * (the cancelling thread, the cancel daemon): the error is logged and kept for the write's next
     * call that reports ({@link #takeUnreported}: the cancelled call, or {@code close()}).
     */
    void releaseAfterFailure() {
        Exception error = release(false);
        if (error != null) {
            unreported = error;
            LOG.warn("cleaning up write '{}' after a failure or cancel met an error", w.context.name(), error);
        }
    }

    /** The cleanup failure of a release nobody has been told of yet, once; null when there is none. */
    Exception takeUnreported() {
        Exception error = unreported;
        unreported = null;
        return error;
    }

    private Exception releaseAll(boolean orderly) {
        w.lifecycle.done();
        ResourceContext context = w.context;
        CleanupException.Steps steps = new CleanupException.Steps("write '" + context.name() + "'");
        boolean cancelled = context.isCancelled();
        if (!cancelled) {
            // A cancelled write keeps what its last prepareCommit read: reading Paimon's gauges again
            // would only delay giving everything back (docs/metrics.md, Paimon metrics).
            steps.run("read Paimon's metrics", () -> context.recorder().recordPaimon(w.paimonMetrics.read()));
        }
        if (!orderly || cancelled) {
            context.compactionExecutor().abort();
        }
        steps.run("close Paimon's write", this::closePaimon);
        for (Handoff h : w.commits.pending()) {
            steps.run("abort prepared commit messages", () -> throwIfAny(h.abortIfOwned(null)));
        }
        w.commits.clearPending();
        steps.run("delete uncommitted data files", () -> throwIfAny(deleteFiles(w.fileIO, w.fileIO.uncommitted(), null)));
        steps.run("close the shared sort", w.sorted::close);
        if (w.crossPartition != null) {
            steps.run("close the cross-partition index", w.crossPartition::close);
        }
        steps.run("close the writers", w.writers::releaseAll);
        w.fixed.giveBack(steps);
        // Counted before the context closes: its final snapshot includes them.
        context.recorder().recordCleanupFailures(steps.failures());
        steps.run("close the resource context", context::close);
        return steps.toException();
    }

    private static void throwIfAny(Exception e) throws Exception {
        if (e != null) {
            throw e;
        }
    }

    /**
     * Closes Paimon's write, a second time if the first close throws, then waits for the compaction
     * threads (up to {@code governance.compaction.stop-timeout}; the context's close reports threads
     * that did not end).
     */
    private void closePaimon() throws Exception {
        if (paimonClosed) {
            return;
        }
        Exception failure = null;
        try {
            w.write.close();
        } catch (Exception e1) {
            try {
                w.write.close();
                LOG.warn("closing Paimon's write of '{}' failed once; the second close finished it", w.context.name(), e1);
            } catch (Exception e2) {
                e1.addSuppressed(e2);
                failure = e1;
            }
        }
        paimonClosed = true;
        w.context.compactionExecutor().stop(w.context.options().compactionStopMillis());
        if (failure != null) {
            throw failure;
        }
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
