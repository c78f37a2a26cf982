package io.paimongov.runtime.internal.formats;

import com.github.luben.zstd.BufferPool;
import com.github.luben.zstd.NoPool;
import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.CompressionInputStream;
import org.apache.hadoop.io.compress.CompressionOutputStream;
import org.apache.hadoop.io.compress.Compressor;
import org.apache.hadoop.io.compress.Decompressor;
import org.apache.paimon.shade.org.apache.parquet.hadoop.codec.ZstandardCodec;

/**
 * Parquet's zstd codec ({@link ZstandardCodec}: the same frames, level, workers and buffer pool,
 * read from the codec's configuration as Parquet reads them) whose streams free their native state
 * when closed and register no finalizer. Parquet's own wraps every page it compresses or
 * decompresses in zstd-jni's {@code ZstdOutputStream} / {@code ZstdInputStream}, whose finalizers
 * keep each closed stream reachable until the JVM's finalizer thread has run it, and with it the
 * page's input: a slice of the whole column chunk's array. A compaction reads thousands of pages, and
 * on a busy machine the finalizer thread falls behind: a governed write's live heap held hundreds of
 * MB of column chunks waiting there (docs/performance.md, "Read lag"). Parquet closes both streams
 * after each page ({@code CodecFactory}'s heap compressor and decompressor), so nothing relies on the
 * finalizer.
 *
 * <p>Thread-safe as Parquet's codec is: the configuration is set once, before the codec is shared.
 */
final class ClosingZstdCodec extends ZstandardCodec {

    /** A codec reading level, workers and buffer pool from {@code conf}, as Parquet's does. */
    ClosingZstdCodec(Configuration conf) {
        setConf(conf);
    }

    @Override
    public CompressionInputStream createInputStream(InputStream stream, Decompressor decompressor) throws IOException {
        return createInputStream(stream);
    }

    @Override
    public CompressionInputStream createInputStream(InputStream stream) throws IOException {
        return new Input(stream, pool());
    }

    @Override
    public CompressionOutputStream createOutputStream(OutputStream stream, Compressor compressor) throws IOException {
        return createOutputStream(stream);
    }

    @Override
    public CompressionOutputStream createOutputStream(OutputStream stream) throws IOException {
        Configuration conf = getConf();
        return new Output(stream, pool(), conf.getInt(PARQUET_COMPRESS_ZSTD_LEVEL, DEFAULT_PARQUET_COMPRESS_ZSTD_LEVEL),
                conf.getInt(PARQUET_COMPRESS_ZSTD_WORKERS, DEFAULTPARQUET_COMPRESS_ZSTD_WORKERS));
    }

    private BufferPool pool() {
        return getConf().getBoolean(PARQUET_COMPRESS_ZSTD_BUFFERPOOL_ENABLED, DEFAULT_PARQUET_COMPRESS_ZSTD_BUFFERPOOL_ENABLED)
                ? RecyclingBufferPool.INSTANCE
                : NoPool.INSTANCE;
    }

    /** One page's decompression. */
    private static final class Input extends CompressionInputStream {
        private final ZstdInputStreamNoFinalizer zstd;

        Input(InputStream in, BufferPool pool) throws IOException {
            super(in);
            this.zstd = new ZstdInputStreamNoFinalizer(in, pool);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return zstd.read(b, off, len);
        }

        @Override
        public int read() throws IOException {
            return zstd.read();
        }

        @Override
        public void resetState() {
            // A page is one frame read to its end; Parquet never reuses a stream.
        }

        @Override
        public void close() throws IOException {
            try {
                zstd.close();
            } finally {
                super.close();
            }
        }
    }

    /** One page's compression. */
    private static final class Output extends CompressionOutputStream {
        private final ZstdOutputStreamNoFinalizer zstd;

        Output(OutputStream out, BufferPool pool, int level, int workers) throws IOException {
            super(out);
            this.zstd = new ZstdOutputStreamNoFinalizer(out, pool).setLevel(level).setWorkers(workers);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            zstd.write(b, off, len);
        }

        @Override
        public void write(int b) throws IOException {
            zstd.write(b);
        }

        @Override
        public void flush() throws IOException {
            zstd.flush();
        }

        @Override
        public void finish() {
            // The frame ends at close, as in Parquet's stream.
        }

        @Override
        public void resetState() {
            // Parquet never reuses a stream.
        }

        /** Ends the frame and closes the stream under it, as Parquet's stream does. */
        @Override
        public void close() throws IOException {
            try {
                zstd.flush();
            } finally {
                zstd.close();
            }
        }
    }
}
