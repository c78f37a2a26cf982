package io.paimongov.runtime.internal.spill;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import org.apache.paimon.compression.BlockCompressionFactory;
import org.apache.paimon.compression.BlockCompressionType;
import org.apache.paimon.compression.BlockCompressor;
import org.apache.paimon.compression.BlockDecompressor;
import org.apache.paimon.compression.BufferCompressionException;
import org.apache.paimon.compression.BufferDecompressionException;
import org.apache.paimon.compression.CompressOptions;

/**
 * The block codec of one {@link TieredSortBuffer}'s spill files. For {@code zstd} it compresses
 * every block with one zstd context kept for the buffer, where Paimon's zstd block codec opens and
 * ends a zstd stream (two native allocations) for every block: at the buffer's 4 KiB blocks that
 * was half of a spilling write's native time (a profile of a 3 MiB primary-key write). Other codecs
 * are Paimon's own. The files are private to the buffer, so only this class reads what it wrote.
 *
 * <p>Native memory: one compression and one decompression context, made at the first block and
 * freed by {@link #release()} (the buffer's {@code clear()} and {@code close()}), since Paimon
 * drops a write buffer after {@code clear()} without closing it. Their size follows the 4 or 8 KiB
 * blocks (zstd sizes its tables to the input), tens of KB; they are not charged to the budget.
 *
 * <p><b>Thread-safety:</b> not thread-safe; used by one buffer's writing thread, as the buffer.
 */
final class SpillCodec implements BlockCompressionFactory {

    private final BlockCompressionFactory paimon;
    private final int level;
    private ZstdCompressCtx compress;
    private ZstdDecompressCtx decompress;

    private SpillCodec(BlockCompressionFactory paimon, int level) {
        this.paimon = paimon;
        this.level = level;
    }

    /** The codec for {@code options}; null when Paimon's spill reader cannot read it back ({@code none}). */
    static SpillCodec of(CompressOptions options) {
        BlockCompressionFactory paimon = BlockCompressionFactory.create(options);
        return paimon == null ? null : new SpillCodec(paimon, options.zstdLevel());
    }

    private boolean zstd() {
        return paimon.getCompressionType() == BlockCompressionType.ZSTD;
    }

    @Override
    public BlockCompressionType getCompressionType() {
        return paimon.getCompressionType();
    }

    @Override
    public BlockCompressor getCompressor() {
        if (!zstd()) {
            return paimon.getCompressor();
        }
        return new BlockCompressor() {
            @Override
            public int getMaxCompressedSize(int srcSize) {
                return (int) Zstd.compressBound(srcSize);
            }

            @Override
            public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff) throws BufferCompressionException {
                try {
                    return compressContext().compressByteArray(dst, dstOff, dst.length - dstOff, src, srcOff, srcLen);
                } catch (ZstdException e) {
                    throw new BufferCompressionException(e);
                }
            }
        };
    }

    @Override
    public BlockDecompressor getDecompressor() {
        if (!zstd()) {
            return paimon.getDecompressor();
        }
        return (src, srcOff, srcLen, dst, dstOff) -> {
            try {
                return decompressContext().decompressByteArray(dst, dstOff, dst.length - dstOff, src, srcOff, srcLen);
            } catch (ZstdException e) {
                throw new BufferDecompressionException(e);
            }
        };
    }

    private ZstdCompressCtx compressContext() {
        if (compress == null) {
            compress = new ZstdCompressCtx().setLevel(level);
        }
        return compress;
    }

    private ZstdDecompressCtx decompressContext() {
        if (decompress == null) {
            decompress = new ZstdDecompressCtx();
        }
        return decompress;
    }

    /** Frees the native contexts; the next block makes them again. Idempotent. */
    void release() {
        if (compress != null) {
            compress.close();
            compress = null;
        }
        if (decompress != null) {
            decompress.close();
            decompress = null;
        }
    }
}
