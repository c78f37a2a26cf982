package io.paimongov.benchmarks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

/**
 * Local files that show where a governed write is, for {@link CancelLatency}'s event-triggered
 * phases: a data file created on the writing thread (a flush begins), a data file opened for
 * reading on another thread (a compaction task's rewrite begins), a manifest file created (a
 * commit writes its manifests). The table's governed write sits above this FileIO and sees it as
 * the table's own; nothing is changed on the way.
 *
 * <p>Thread-safety: the flags are volatile; set {@link #writer} before the write runs.
 */
final class CancelPoints extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    /** The thread that calls the write. */
    transient volatile Thread writer;
    transient volatile boolean flushStarted;
    transient volatile boolean compactionStarted;
    transient volatile boolean manifestCreated;
    /** The thread creating the first manifest waits there until {@link #cancelMade} (at most {@value #HOLD_MILLIS} ms). */
    transient volatile boolean holdAtManifest;
    /** Set by the canceller once it called cancel (or gave up). */
    transient volatile boolean cancelMade;

    private static final long HOLD_MILLIS = 5_000;

    CancelPoints(Thread writer) {
        this.writer = writer;
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out = super.newOutputStream(path, overwrite);
        if (path.getName().startsWith("data-") && Thread.currentThread() == writer) {
            flushStarted = true;
        } else if (path.getParent() != null && path.getParent().getName().equals("manifest") && !manifestCreated) {
            manifestCreated = true;
            if (holdAtManifest) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HOLD_MILLIS);
                while (!cancelMade && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
        return out;
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        SeekableInputStream in = super.newInputStream(path);
        if (path.getName().startsWith("data-") && Thread.currentThread() != writer) {
            compactionStarted = true;
        }
        return in;
    }
}
