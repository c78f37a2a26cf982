package io.paimongov.heap;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

/**
 * Local files, watched from below the governed write's own FileIO: once armed, an action runs (a
 * cancel) at a point of the write that the files show, on the thread that reached it, and from then
 * on every stream counts the bytes that still pass through it. What a test asserts on: how many
 * bytes each stream moved after the cancel, measured where the bytes reach the file system. Files
 * are read through {@link RandomAccessFile}, which ignores interrupts as an object store's stream
 * does, so a read stops only where the write checks its cancellation.
 *
 * <p>Thread-safety: streams are counted from any thread; arm before the write reaches the point.
 */
final class WatchedFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    /** Where the action runs. */
    enum Point {
        /** The arming (writing) thread creates a data file: a flush starts, nothing is encoded yet. */
        FLUSH_START,
        /** A data file written by the arming (writing) thread has taken {@code FLUSH_BYTES}: mid-flush. */
        FLUSH,
        /** Compaction threads have read {@code FLUSH_BYTES} of data files: mid-rewrite. */
        COMPACTION,
        /** The commit creates its first manifest file. */
        MANIFEST,
        /** The commit has written its snapshot. */
        SNAPSHOT
    }

    static final long FLUSH_BYTES = 64 * 1024;

    private transient volatile Point armed;
    private transient volatile Runnable action;
    private transient volatile Thread writer;
    final transient AtomicBoolean fired = new AtomicBoolean();
    private final transient AtomicLong compactionRead = new AtomicLong();
    /** Per file: bytes written to it in all. */
    final transient Map<String, AtomicLong> written = new ConcurrentHashMap<>();
    /** Per file: bytes written to it after the action ran. */
    final transient Map<String, AtomicLong> writtenAfter = new ConcurrentHashMap<>();
    /** Per file and stream: bytes read after the action ran. */
    final transient Map<String, AtomicLong> readAfter = new ConcurrentHashMap<>();

    /** Runs {@code action} once, at {@code point}; the calling thread is the writing one. */
    void arm(Point point, Runnable action) {
        this.writer = Thread.currentThread();
        this.action = action;
        this.armed = point;
    }

    private void reached(Point point) {
        if (armed == point && fired.compareAndSet(false, true)) {
            action.run();
        }
    }

    long maxWrittenAfter() {
        return writtenAfter.values().stream().mapToLong(AtomicLong::get).max().orElse(0);
    }

    long maxReadAfter() {
        return readAfter.values().stream().mapToLong(AtomicLong::get).max().orElse(0);
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out = new Counted(super.newOutputStream(path, overwrite), path, Thread.currentThread());
        if (path.getName().startsWith("data-") && Thread.currentThread() == writer) {
            reached(Point.FLUSH_START);
        }
        if (path.getParent() != null && path.getParent().getName().equals("manifest")) {
            reached(Point.MANIFEST);
        }
        return out;
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        // Read as an object store's stream reads: deaf to interrupts (LocalFileIO's own stream seeks
        // through a FileChannel, which an interrupt closes), so only the write's own checks stop it.
        RandomAccessFile in = new RandomAccessFile(new File(path.toUri()), "r");
        boolean compaction = path.getName().startsWith("data-") && Thread.currentThread().getName().startsWith("paimon-gov-compaction");
        AtomicLong after = new AtomicLong();
        readAfter.put(path.getName() + "#" + System.identityHashCode(in), after);
        return new SeekableInputStream() {
            @Override
            public void seek(long pos) throws IOException {
                in.seek(pos);
            }

            @Override
            public long getPos() throws IOException {
                return in.getFilePointer();
            }

            @Override
            public int read() throws IOException {
                boolean was = fired.get();
                int b = in.read();
                if (was && b >= 0) {
                    after.incrementAndGet();
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                boolean was = fired.get();
                int n = in.read(b, off, len);
                if (was && n > 0) {
                    after.addAndGet(n);
                }
                if (compaction && n > 0 && compactionRead.addAndGet(n) >= FLUSH_BYTES) {
                    reached(Point.COMPACTION);
                }
                return n;
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        boolean written = super.tryToWriteAtomic(path, content);
        if (written && path.getName().startsWith("snapshot-")) {
            reached(Point.SNAPSHOT);
        }
        return written;
    }

    private final class Counted extends PositionOutputStream {
        private final PositionOutputStream out;
        private final AtomicLong after = new AtomicLong();
        private final AtomicLong all = new AtomicLong();
        private final Point watched;
        private long total;

        Counted(PositionOutputStream out, Path path, Thread opener) {
            this.out = out;
            boolean data = path.getName().startsWith("data-");
            this.watched = data && opener == writer ? Point.FLUSH : null;
            writtenAfter.put(path.getName(), after);
            written.put(path.getName(), all);
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b) throws IOException {
            write(b, 0, b.length);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            boolean was = fired.get();
            out.write(b, off, len);
            if (was) {
                after.addAndGet(len);
            }
            total += len;
            all.addAndGet(len);
            if (watched != null && total >= FLUSH_BYTES) {
                reached(watched);
            }
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
