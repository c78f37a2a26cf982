package io.paimongov.tck;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;

/**
 * A table's file system as COMPACT-1 watches it: every call goes to the table's own {@link FileIO}
 * unchanged, and each data file a compaction thread opens for reading counts as open in its
 * (partition, bucket) until the stream is closed. Two threads reading one bucket's files at once
 * are two compactions of that bucket at once: Paimon's compaction of a bucket reads its input files
 * on the thread that runs it and closes them before the task ends. Outputs are not counted: with
 * {@code async-file-write} a compaction's output file may close later, on Paimon's writing thread.
 * So the kit sees the serial-per-bucket rule, and which buckets were compacted, without the
 * runtime's own account of its tasks.
 *
 * <p>Thread-safe: the bookkeeping is under this object's lock; the streams themselves are used by
 * one thread each, as Paimon uses them.
 */
final class CompactionReads implements FileIO {

    private static final long serialVersionUID = 1L;

    private final FileIO delegate;
    /** Whether a thread runs compactions: one the engine's compaction factory made. */
    private final transient Predicate<Thread> compacting;
    /** Per bucket, the compaction threads with input streams open in it and how many each. */
    private final transient Map<String, Map<Thread, Integer>> open = new HashMap<>();
    private final transient Set<String> read = new TreeSet<>();
    private final transient List<String> overlaps = new ArrayList<>();

    CompactionReads(FileIO delegate, Predicate<Thread> compacting) {
        this.delegate = delegate;
        this.compacting = compacting;
    }

    /** {@code table} on a file system watched for the reads of threads {@code compacting} accepts. */
    static Watched watch(FileStoreTable table, Predicate<Thread> compacting) {
        CompactionReads reads = new CompactionReads(table.fileIO(), compacting);
        return new Watched(FileStoreTableFactory.create(reads, table.location(), table.schema()), reads);
    }

    /** The watched table and what was seen of it. */
    record Watched(FileStoreTable table, CompactionReads reads) {}

    /** The buckets ({@code partition/bucket-n}) whose data files a compaction thread read. */
    synchronized Set<String> bucketsRead() {
        return new TreeSet<>(read);
    }

    /** Each time a compaction thread opened a bucket's file while another had one of that bucket open, described. */
    synchronized List<String> overlaps() {
        return List.copyOf(overlaps);
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        SeekableInputStream in = delegate.newInputStream(path);
        Thread reader = Thread.currentThread();
        String bucket = bucketOf(path);
        if (bucket == null || !compacting.test(reader)) {
            return in;
        }
        opened(bucket, reader, path);
        return new Counted(in, () -> closed(bucket, reader));
    }

    /** {@code partition/bucket-n} of a data file, or null for any other file. */
    static String bucketOf(Path path) {
        Path dir = path.getParent();
        if (dir == null || !dir.getName().startsWith("bucket-") || !path.getName().startsWith("data-") || dir.getParent() == null) {
            return null;
        }
        return dir.getParent().getName() + "/" + dir.getName();
    }

    private synchronized void opened(String bucket, Thread reader, Path path) {
        read.add(bucket);
        Map<Thread, Integer> readers = open.computeIfAbsent(bucket, b -> new HashMap<>());
        for (Thread other : readers.keySet()) {
            if (other != reader) {
                overlaps.add("thread '" + reader.getName() + "' opened " + path.getName() + " of " + bucket + " while thread '"
                        + other.getName() + "' was reading that bucket's files");
            }
        }
        readers.merge(reader, 1, Integer::sum);
    }

    private synchronized void closed(String bucket, Thread reader) {
        Map<Thread, Integer> readers = open.get(bucket);
        if (readers != null && readers.merge(reader, -1, Integer::sum) <= 0) {
            readers.remove(reader);
        }
    }

    /** An input stream that reports its first close. */
    private static final class Counted extends SeekableInputStream {
        private final SeekableInputStream in;
        private final Runnable onClose;
        private boolean closed;

        Counted(SeekableInputStream in, Runnable onClose) {
            this.in = in;
            this.onClose = onClose;
        }

        @Override
        public void seek(long position) throws IOException {
            in.seek(position);
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public int read() throws IOException {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        public void close() throws IOException {
            try {
                in.close();
            } finally {
                if (!closed) {
                    closed = true;
                    onClose.run();
                }
            }
        }
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
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        return delegate.newOutputStream(path, overwrite);
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
    public boolean exists(Path path) throws IOException {
        return delegate.exists(path);
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        return delegate.delete(path, recursive);
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return delegate.mkdirs(path);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        return delegate.rename(src, dst);
    }
}
