package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.cancel.WriteCancelledIOException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.fs.Path;

/**
 * What the governed write learns from its data files through {@link TrackingFileIO}: a
 * cancellation check before each file is created and inside its streams, the flush time of the writing thread's data
 * files, the bucket of a compaction task from the files it touches, and the first I/O error a data
 * file met (Paimon's cleanup may throw another one instead, which hides it).
 *
 * <p><b>Thread-safety:</b> called from the writing thread and from compaction threads at once;
 * the writing thread is a volatile field {@link OpenedWrite#enter()} sets when the calling thread
 * is another than the last one (so a row costs a read of it, not a store), the first error an
 * atomic reference set once.
 */
final class DataFileListener implements TrackingFileIO.Listener {

    private final ResourceContext context;
    private final AtomicReference<IOException> firstError = new AtomicReference<>();
    private volatile Thread writingThread;

    DataFileListener(ResourceContext context) {
        this.context = context;
    }

    /**
     * Marks {@code thread} as the one that calls the write, from its call on. Between calls it stays
     * the last caller's: data files are made only inside calls, and compaction threads are never
     * callers.
     */
    void writingThread(Thread thread) {
        if (writingThread != thread) {
            writingThread = thread;
        }
    }

    /** The first I/O error a data file of this write met; null when none did. */
    IOException firstError() {
        return firstError.get();
    }

    @Override
    public void touched(Path path) {
        Path dir = path.getParent();
        if (dir != null) {
            context.compactionExecutor().tracker().fileTouched(dir.toString());
        }
    }

    @Override
    public void beforeCreate(Path path) {
        context.token().throwIfCancelled();
    }

    @Override
    public void checkCancelled() throws WriteCancelledIOException {
        context.token().throwIfCancelledIO();
    }

    @Override
    public boolean checksReads() {
        return context.compactionExecutor().tracker().runsTaskHere();
    }

    @Override
    public void written(Path path, long bytes, long nanos, Thread writer) {
        if (writer == writingThread && path.getName().startsWith("data-")) {
            context.recorder().recordFlush(nanos);
        }
    }

    @Override
    public void failed(Path path, IOException error) {
        firstError.compareAndSet(null, error);
    }
}
