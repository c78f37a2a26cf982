package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.cancel.WriteCancelledIOException;
import io.paimongov.runtime.spill.FreeSpaceAtFailure;
import io.paimongov.runtime.tables.PaimonPaths;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;

/**
 * The table's {@link FileIO} as one governed write sees it: data files the write creates are
 * tracked until a prepared commit takes them over (index files too, {@link #isIndexFile}), timed,
 * and checked against cancellation when created. After a failure or cancel the write deletes what
 * it created and nobody committed, so no orphan data file stays behind even where Paimon's own
 * cleanup misses one (an interrupted or late compaction). While the write commits, the manifest
 * files the commit writes are recorded too ({@link #startCommit}), so that a commit that failed
 * without landing can remove them; and the first I/O error a data file met is kept ({@link
 * Listener#failed}), because Paimon's cleanup of that file often throws a second error that hides
 * the first.
 *
 * <p>Cancellation inside long loops ({@link CheckedStreams}): the output streams of data, changelog
 * and index files, the input streams of those files when a compaction task opens them, and the
 * manifest files a commit writes and reads until it writes its snapshot check the write's
 * cancellation every {@value CheckedStreams#CHUNK} bytes and on flush. A commit also checks before
 * each manifest file it creates and before it writes its snapshot; once a snapshot of the commit is
 * written nothing of the commit checks any more, so a cancel then lets the commit finish and be
 * settled ({@link CommitSettlement}) rather than tear it. Reads outside compaction tasks are not
 * checked: a cancelled write still settles its commit, and readers of the table see no cancel.
 *
 * <p>Everything else is passed to the table's own FileIO unchanged. <b>Thread-safety:</b>
 * thread-safe; the writing thread and compaction threads create files. Not meant to be serialized:
 * a deserialized copy tracks nothing.
 */
final class TrackingFileIO implements FileIO {

    private static final long serialVersionUID = 1L;

    /** Called when a data file is opened (for reading or writing), created, and its stream closed. */
    interface Listener {
        /** A data file is opened for reading or writing, on the calling thread. */
        void touched(Path path);

        void beforeCreate(Path path);

        void written(Path path, long bytes, long nanos, Thread writer);

        /** Creating, writing or closing a data file threw {@code error}. */
        void failed(Path path, IOException error);

        /** Throws when the write was cancelled; the check of the file streams. */
        void checkCancelled() throws WriteCancelledIOException;

        /** Whether the calling thread runs a compaction task of the write: its reads are checked. */
        boolean checksReads();
    }

    private final FileIO delegate;
    private final transient Listener listener;
    private final transient Set<Path> created = ConcurrentHashMap.newKeySet();
    private final transient Set<Path> commitFiles = ConcurrentHashMap.newKeySet();
    private transient volatile boolean committing;
    /** A snapshot of the commit under way was written: the commit no longer checks the cancellation. */
    private transient volatile boolean snapshotWritten;
    /** The id of the last snapshot the commit under way wrote; -1 before it wrote one. */
    private transient volatile long writtenSnapshotId = -1;
    /** Asked before each snapshot the commit under way writes. */
    private transient volatile SnapshotGuard guard;

    /** Checks a commit before it writes a snapshot file. */
    interface SnapshotGuard {
        /** Before the commit writes snapshot {@code id}; throws to stop it, publishing nothing. */
        void beforeSnapshot(long id) throws IOException;
    }

    TrackingFileIO(FileIO delegate, Listener listener) {
        this.delegate = delegate;
        this.listener = listener;
    }

    /** The local file of {@code path}, for the free bytes of its file system; null on another file system. */
    private static java.nio.file.Path local(Path path) {
        try {
            return PaimonPaths.local(path);
        } catch (IllegalArgumentException elsewhere) {
            return null;
        }
    }

    static boolean isDataFile(Path path) {
        String name = path.getName();
        return name.startsWith("data-") || name.startsWith("changelog-");
    }

    /**
     * An index file of the table ({@code index/index-*}: a dynamic-bucket hash index, deletion
     * vectors), which the write creates beside its data files at prepareCommit and compaction.
     * Paimon's abort of commit messages leaves index files, so the write tracks them as its own
     * until a prepared commit takes them over, as it does data files.
     */
    static boolean isIndexFile(Path path) {
        Path parent = path.getParent();
        return path.getName().startsWith("index-") && parent != null && parent.getName().equals("index");
    }

    /** Data and index files created since the last {@link #drain()} and not deleted since. */
    List<Path> uncommitted() {
        return List.copyOf(created);
    }

    /**
     * Hands the files tracked so far to a prepared commit, which owns them from now on; tracking
     * starts afresh for the files the write creates next.
     */
    List<Path> drain() {
        List<Path> drained = List.copyOf(created);
        created.removeAll(drained);
        return drained;
    }

    /**
     * From now on, manifest files created are recorded as the commit's, until {@link #endCommit()},
     * and {@code guard} is asked before each snapshot file the commit writes.
     */
    void startCommit(SnapshotGuard guard) {
        commitFiles.clear();
        snapshotWritten = false;
        writtenSnapshotId = -1;
        this.guard = guard;
        committing = true;
    }

    /** The id of the last snapshot the commit under way (or just ended) wrote; -1 when none. */
    long writtenSnapshotId() {
        return writtenSnapshotId;
    }

    /** Stops recording and returns the manifest files created since {@link #startCommit}. */
    List<Path> endCommit() {
        committing = false;
        guard = null;
        List<Path> files = List.copyOf(commitFiles);
        commitFiles.clear();
        return files;
    }

    /** A file of the table's {@code manifest/} directory: manifests, manifest lists, index manifests. */
    private static boolean isManifestFile(Path path) {
        return path.getParent() != null && path.getParent().getName().equals("manifest");
    }

    /** The id of snapshot file {@code snapshot-<id>}; -1 for another name. */
    private static long snapshotId(Path path) {
        String id = path.getName().substring("snapshot-".length());
        return !id.isEmpty() && id.chars().allMatch(Character::isDigit) ? Long.parseLong(id) : -1;
    }

    private static boolean isSnapshotFile(Path path) {
        return path.getName().startsWith("snapshot-") && path.getParent() != null && path.getParent().getName().equals("snapshot");
    }

    /** The commit under way has written no snapshot yet: a cancel still stops it. */
    private boolean commitCancellable() {
        return committing && !snapshotWritten;
    }

    /** The check of a commit's manifest streams: only until the commit wrote its snapshot. */
    private void checkCommit() throws WriteCancelledIOException {
        if (commitCancellable()) {
            listener.checkCancelled();
        }
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        if (listener != null && isIndexFile(path)) {
            listener.checkCancelled();
            created.add(path);
            return new CheckedStreams.Output(delegate.newOutputStream(path, overwrite), listener::checkCancelled);
        }
        if (listener == null || !isDataFile(path)) {
            if (listener == null || !committing || !isManifestFile(path)) {
                return delegate.newOutputStream(path, overwrite);
            }
            checkCommit();
            commitFiles.add(path);
            return new CheckedStreams.Output(delegate.newOutputStream(path, overwrite), this::checkCommit) {
                @Override
                IOException failed(IOException e) {
                    return FreeSpaceAtFailure.attach(e, local(path));
                }
            };
        }
        listener.beforeCreate(path);
        listener.touched(path);
        created.add(path);
        PositionOutputStream out;
        try {
            out = delegate.newOutputStream(path, overwrite);
        } catch (IOException e) {
            listener.failed(path, FreeSpaceAtFailure.attach(e, local(path)));
            throw e;
        }
        return new TimedStream(BufferedPositionOutput.buffers(path.getName()) ? new BufferedPositionOutput(out) : out, path);
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        boolean deleted = delegate.delete(path, recursive);
        if (created != null) {
            created.remove(path);
        }
        return deleted;
    }

    @Override
    public boolean isObjectStore() {
        return delegate.isObjectStore();
    }

    @Override
    public void configure(CatalogContext context) {
        delegate.configure(context);
    }

    @Override
    public void setRuntimeContext(Map<String, String> options) {
        delegate.setRuntimeContext(options);
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        if (listener == null) {
            return delegate.newInputStream(path);
        }
        boolean data = isDataFile(path);
        if (data) {
            listener.touched(path);
        }
        if ((data || isIndexFile(path)) && listener.checksReads()) {
            listener.checkCancelled();
            return CheckedStreams.input(delegate.newInputStream(path), listener::checkCancelled);
        }
        if (isManifestFile(path) && commitCancellable()) {
            checkCommit();
            return CheckedStreams.input(delegate.newInputStream(path), this::checkCommit);
        }
        return delegate.newInputStream(path);
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return delegate.getFileStatus(path);
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        return delegate.listStatus(path);
    }

    @Override
    public FileStatus[] listFiles(Path path, boolean recursive) throws IOException {
        return delegate.listFiles(path, recursive);
    }

    @Override
    public FileStatus[] listDirectories(Path path) throws IOException {
        return delegate.listDirectories(path);
    }

    @Override
    public boolean exists(Path path) throws IOException {
        return delegate.exists(path);
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return delegate.mkdirs(path);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        return delegate.rename(src, dst);
    }

    @Override
    public long getFileSize(Path path) throws IOException {
        return delegate.getFileSize(path);
    }

    @Override
    public boolean isDir(Path path) throws IOException {
        return delegate.isDir(path);
    }

    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        if (listener == null || !committing || !isSnapshotFile(path)) {
            return delegate.tryToWriteAtomic(path, content);
        }
        checkCommit();
        long id = snapshotId(path);
        SnapshotGuard check = guard;
        if (check != null && id >= 0) {
            check.beforeSnapshot(id);
        }
        boolean written = delegate.tryToWriteAtomic(path, content);
        if (written) {
            snapshotWritten = true;
            writtenSnapshotId = id;
        }
        return written;
    }

    @Override
    public String readFileUtf8(Path path) throws IOException {
        return delegate.readFileUtf8(path);
    }

    @Override
    public void close() throws IOException {
        // The table's FileIO belongs to the table, not to this write.
    }

    /**
     * A data file's stream: checked ({@link CheckedStreams}), timed, its I/O errors reported; over
     * a {@link BufferedPositionOutput} for Parquet files.
     */
    private final class TimedStream extends CheckedStreams.Output {
        private final Path path;
        private final long start = System.nanoTime();
        private final Thread writer = Thread.currentThread();
        private boolean closed;

        TimedStream(PositionOutputStream out, Path path) {
            super(out, listener::checkCancelled);
            this.path = path;
        }

        @Override
        IOException failed(IOException e) {
            listener.failed(path, FreeSpaceAtFailure.attach(e, local(path)));
            return e;
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            long bytes;
            try {
                bytes = getPos();
            } catch (IOException e) {
                throw failed(e);
            }
            super.close();
            listener.written(path, bytes, System.nanoTime() - start, writer);
        }
    }
}
