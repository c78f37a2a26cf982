package io.paimongov.runtime.write;

import java.io.IOException;
import org.apache.paimon.fs.PositionOutputStream;

/**
 * A Parquet data file's output stream with a small buffer in front, so that the many small writes
 * Parquet makes reach the file system as a few. Parquet serialises its page headers, column and
 * offset indexes and footer field by field through Thrift straight into the stream, and Paimon's
 * local file streams do not buffer: a write of 120,000 rows in 64 KiB row groups made 116,489
 * write system calls, 111,726 of them under 64 bytes (docs/performance.md, P4). ORC and Avro buffer
 * their own writes (an Avro write of the same rows made 1,116 calls, most of them of 4 KiB or
 * more), so their streams are left as they are. A write of at least the buffer's size goes to the
 * stream unbuffered (after what is buffered), so page bodies are not copied.
 *
 * <p>Heap: {@link #SIZE} bytes per open stream, charged with each open data file ({@link
 * WriteFootprint}). {@link #getPos()} counts the buffered bytes. {@link #flush()} and {@link
 * #close()} write the buffer out first; {@code close()} closes the stream even when that write
 * fails, and throws the first error.
 *
 * <p><b>Thread-safety:</b> not thread-safe; one thread writes a file, as Paimon's writers do.
 */
final class BufferedPositionOutput extends PositionOutputStream {

    /** The buffer: a few hundred of Parquet's small writes, a fraction of an open file's measured heap. */
    static final int SIZE = 8 << 10;
    /** The format whose data files are written through this buffer. */
    static final String FORMAT = "parquet";

    private final PositionOutputStream out;
    private final byte[] buffer = new byte[SIZE];
    private int count;

    BufferedPositionOutput(PositionOutputStream out) {
        this.out = out;
    }

    /** Whether the data file named {@code fileName} is written through this buffer: a {@value #FORMAT} file. */
    static boolean buffers(String fileName) {
        return fileName.endsWith("." + FORMAT);
    }

    @Override
    public long getPos() throws IOException {
        return out.getPos() + count;
    }

    @Override
    public void write(int b) throws IOException {
        if (count == SIZE) {
            writeBuffer();
        }
        buffer[count++] = (byte) b;
    }

    @Override
    public void write(byte[] b) throws IOException {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len >= SIZE) {
            writeBuffer();
            out.write(b, off, len);
            return;
        }
        if (len > SIZE - count) {
            writeBuffer();
        }
        System.arraycopy(b, off, buffer, count, len);
        count += len;
    }

    @Override
    public void flush() throws IOException {
        writeBuffer();
        out.flush();
    }

    @Override
    public void close() throws IOException {
        try {
            writeBuffer();
        } catch (IOException | RuntimeException e) {
            try {
                out.close();
            } catch (IOException | RuntimeException second) {
                e.addSuppressed(second);
            }
            throw e;
        }
        out.close();
    }

    private void writeBuffer() throws IOException {
        if (count > 0) {
            int n = count;
            // Emptied first: after a failed write the bytes are not written again by close.
            count = 0;
            out.write(buffer, 0, n);
        }
    }
}
