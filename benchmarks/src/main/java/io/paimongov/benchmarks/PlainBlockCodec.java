package io.paimongov.benchmarks;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import org.apache.paimon.compression.BlockCompressionFactory;
import org.apache.paimon.compression.BlockCompressor;
import org.apache.paimon.compression.BlockDecompressor;
import org.apache.paimon.compression.CompressOptions;

/**
 * The block codec of {@link PlainExternalSort}: lz4 through Paimon's block codec (the one the
 * governed spill uses for lz4), zstd through one reused zstd-jni context each way (as the governed
 * spill keeps one per buffer). Not thread-safe; one per sort.
 */
abstract class PlainBlockCodec implements AutoCloseable {

    /** The codec of {@code options}: {@code zstd} at its level, else Paimon's block codec. */
    static PlainBlockCodec of(CompressOptions options) {
        return options.compress().equalsIgnoreCase("zstd") ? new Zstd(options.zstdLevel()) : new Paimon(options);
    }

    /** The most bytes {@code length} raw bytes compress to. */
    abstract int bound(int length);

    /** Compresses {@code raw[0, length)} into {@code into} (at least {@link #bound} long); the compressed length. */
    abstract int compress(byte[] raw, int length, byte[] into) throws IOException;

    /** Decompresses {@code compressed[0, length)} into {@code into}, which it must fill with exactly {@code raw} bytes. */
    abstract void decompress(byte[] compressed, int length, byte[] into, int raw) throws IOException;

    @Override
    public void close() {}

    private static final class Paimon extends PlainBlockCodec {
        private final BlockCompressor compressor;
        private final BlockDecompressor decompressor;

        Paimon(CompressOptions options) {
            BlockCompressionFactory factory = BlockCompressionFactory.create(options);
            this.compressor = factory.getCompressor();
            this.decompressor = factory.getDecompressor();
        }

        @Override
        int bound(int length) {
            return compressor.getMaxCompressedSize(length);
        }

        @Override
        int compress(byte[] raw, int length, byte[] into) throws IOException {
            return compressor.compress(raw, 0, length, into, 0);
        }

        @Override
        void decompress(byte[] compressed, int length, byte[] into, int raw) throws IOException {
            int n = decompressor.decompress(compressed, 0, length, into, 0);
            if (n != raw) {
                throw new IOException("a block of " + raw + " bytes decompressed to " + n);
            }
        }
    }

    private static final class Zstd extends PlainBlockCodec {
        private final ZstdCompressCtx compress;
        private final ZstdDecompressCtx decompress = new ZstdDecompressCtx();

        Zstd(int level) {
            this.compress = new ZstdCompressCtx().setLevel(level);
        }

        @Override
        int bound(int length) {
            return (int) com.github.luben.zstd.Zstd.compressBound(length);
        }

        @Override
        int compress(byte[] raw, int length, byte[] into) {
            return compress.compressByteArray(into, 0, into.length, raw, 0, length);
        }

        @Override
        void decompress(byte[] compressed, int length, byte[] into, int raw) throws IOException {
            int n = decompress.decompressByteArray(into, 0, raw, compressed, 0, length);
            if (n != raw) {
                throw new IOException("a block of " + raw + " bytes decompressed to " + n);
            }
        }

        @Override
        public void close() {
            compress.close();
            decompress.close();
        }
    }
}
