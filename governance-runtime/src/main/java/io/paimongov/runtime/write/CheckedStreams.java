package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.cancel.WriteCancelledIOException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.VectoredReadable;

/**
 * File streams that check a governed write's cancellation while Paimon moves bytes through them:
 * every {@value #CHUNK} bytes, and before each {@code flush}. A write or read larger than what is
 * left of the current chunk is split at the chunk's end, so that after a cancel at most one chunk
 * more passes through a stream whatever sizes Paimon writes or reads in; a read returns at most
 * the rest of the chunk (a short read, which {@link java.io.InputStream} allows and Paimon's format
 * readers loop over). {@code close} never checks: a stream must always be closable.
 *
 * <p>Why: java.io ignores interrupts, so before these checks a cancel reached a flush or a
 * compaction rewrite only at its next file, after the whole file was encoded and written. The
 * check throws {@link WriteCancelledIOException}, an I/O error, so Paimon unwinds as from any
 * failed I/O and deletes its partial file. No thread is interrupted (an interrupt during
 * Paimon's async file write leaves an empty orphan file).
 *
 * <p><b>Thread-safety:</b> an output stream is used by one thread at a time, as Paimon uses it. An
 * input stream may be read by several threads at once through {@link VectoredReadable#pread}
 * (Parquet's vectored reads): its byte count is atomic.
 */
final class CheckedStreams {

    /** Bytes between two checks of one stream. */
    static final int CHUNK = 256 * 1024;

    /** The cancellation check; throws when the write was cancelled. */
    @FunctionalInterface
    interface Check {
        void run() throws WriteCancelledIOException;
    }

    private CheckedStreams() {}

    /** {@code in}, checked; vectored reads stay available when {@code in} offers them. */
    static SeekableInputStream input(SeekableInputStream in, Check check) {
        return in instanceof VectoredReadable ? new VectoredInput(in, check) : new Input(in, check);
    }

    /** An output stream checked every {@value #CHUNK} bytes and on flush. */
    static class Output extends PositionOutputStream {
        private final PositionOutputStream out;
        private final Check check;
        private long sinceCheck;

        Output(PositionOutputStream out, Check check) {
            this.out = out;
            this.check = check;
        }

        /** A write, flush or close of the delegate threw {@code e} (not called for the cancellation). */
        IOException failed(IOException e) {
            return e;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw failed(e);
            }
            counted(1);
        }

        @Override
        public void write(byte[] b) throws IOException {
            write(b, 0, b.length);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = (int) Math.min(len, CHUNK - sinceCheck);
                try {
                    out.write(b, off, n);
                } catch (IOException e) {
                    throw failed(e);
                }
                off += n;
                len -= n;
                counted(n);
            }
        }

        private void counted(int n) throws WriteCancelledIOException {
            sinceCheck += n;
            if (sinceCheck >= CHUNK) {
                sinceCheck = 0;
                check.run();
            }
        }

        @Override
        public void flush() throws IOException {
            check.run();
            try {
                out.flush();
            } catch (IOException e) {
                throw failed(e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                out.close();
            } catch (IOException e) {
                throw failed(e);
            }
        }
    }

    /** An input stream checked every {@value #CHUNK} bytes. */
    private static class Input extends SeekableInputStream {
        final SeekableInputStream in;
        private final Check check;
        private final AtomicLong sinceCheck = new AtomicLong();

        Input(SeekableInputStream in, Check check) {
            this.in = in;
            this.check = check;
        }

        /** Checks when a chunk was read since the last check; returns how much may be read now. */
        final int allowed(int len) throws WriteCancelledIOException {
            long since = sinceCheck.get();
            if (since >= CHUNK) {
                sinceCheck.set(0);
                since = 0;
                check.run();
            }
            return (int) Math.min(len, CHUNK - since);
        }

        final int counted(int n) {
            if (n > 0) {
                sinceCheck.addAndGet(n);
            }
            return n;
        }

        @Override
        public void seek(long pos) throws IOException {
            in.seek(pos);
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public int read() throws IOException {
            allowed(1);
            int b = in.read();
            if (b >= 0) {
                counted(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return in.read(b, off, 0);
            }
            return counted(in.read(b, off, allowed(len)));
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** {@link Input} over a stream that reads at positions: its positioned reads are checked too. */
    private static final class VectoredInput extends Input implements VectoredReadable {
        private final VectoredReadable vectored;

        VectoredInput(SeekableInputStream in, Check check) {
            super(in, check);
            this.vectored = (VectoredReadable) in;
        }

        @Override
        public int pread(long position, byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return vectored.pread(position, b, off, 0);
            }
            return counted(vectored.pread(position, b, off, allowed(len)));
        }

        @Override
        public int minSeekForVectorReads() {
            return vectored.minSeekForVectorReads();
        }

        @Override
        public int batchSizeForVectorReads() {
            return vectored.batchSizeForVectorReads();
        }

        @Override
        public int parallelismForVectorReads() {
            return vectored.parallelismForVectorReads();
        }
    }
}
