package io.paimongov.reliability;

import java.io.IOException;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;

/**
 * Paimon's {@link LocalFileIO} under the {@code faulty://} scheme, failing where {@link
 * FileFaults} says: a data file's create or write, or a snapshot file's atomic write. When
 * nothing is armed it is the local file system, unchanged.
 *
 * <p>{@code faulty:///a/b} is the local path {@code /a/b}; listed paths keep the {@code faulty}
 * scheme. Everything else is {@link LocalFileIO}'s own, including its {@code copyFile} (a file
 * copy, which Paimon's writes do not use, goes around the faults). <b>Thread-safety:</b> as {@link
 * LocalFileIO}.
 */
final class FaultyFileIO extends LocalFileIO {

    static final String SCHEME = "faulty";

    private static final long serialVersionUID = 1L;

    /** The URI of local directory {@code dir} on this scheme. */
    static String uri(java.nio.file.Path dir) {
        return SCHEME + "://" + dir.toAbsolutePath();
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        long limit = path.getName().startsWith("data-") ? FileFaults.current().dataFileLimit() : -1;
        if (limit == 0) {
            throw FileFaults.current().dataFileError(path.toString(), 0);
        }
        PositionOutputStream out = super.newOutputStream(path, overwrite);
        return limit < 0 ? out : new FailingStream(out, path, limit, FileFaults.current());
    }

    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        if (!path.getName().startsWith("snapshot-")) {
            return super.tryToWriteAtomic(path, content);
        }
        switch (FileFaults.current().snapshotFate()) {
            case FAIL_BEFORE:
                throw new IOException("injected: writing " + path + " failed");
            case LAND_THEN_FAIL:
                super.tryToWriteAtomic(path, content);
                throw new IOException("injected: " + path + " was written, then the file system failed");
            default:
                return super.tryToWriteAtomic(path, content);
        }
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return onScheme(super.getFileStatus(path));
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        FileStatus[] statuses = super.listStatus(path);
        for (int i = 0; i < statuses.length; i++) {
            statuses[i] = onScheme(statuses[i]);
        }
        return statuses;
    }

    private static FileStatus onScheme(FileStatus status) {
        Path path = new Path(SCHEME + "://" + status.getPath().toUri().getPath());
        return new SchemeStatus(status.getLen(), status.isDir(), path, status.getModificationTime());
    }

    /** A listed file's status, its path on this scheme; the components are {@link FileStatus}'s getters. */
    private record SchemeStatus(long getLen, boolean isDir, Path getPath, long getModificationTime)
            implements FileStatus {}

    /** A data file stream that fails once it would pass its byte limit. */
    private static final class FailingStream extends PositionOutputStream {
        private final PositionOutputStream out;
        private final Path path;
        private final long limit;
        private final FileFaults.Plan plan;

        FailingStream(PositionOutputStream out, Path path, long limit, FileFaults.Plan plan) {
            this.out = out;
            this.path = path;
            this.limit = limit;
            this.plan = plan;
        }

        private void admit(int bytes) throws IOException {
            long pos = out.getPos();
            if (pos + bytes > limit) {
                throw plan.dataFileError(path.toString(), pos);
            }
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            admit(1);
            out.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            write(b, 0, b.length);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            admit(len);
            out.write(b, off, len);
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
