package io.paimongov.runtime.internal.spill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.paimon.compression.BlockCompressionFactory;
import org.apache.paimon.compression.BlockCompressor;
import org.apache.paimon.compression.BlockDecompressor;
import org.apache.paimon.compression.CompressOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The spill codec against Paimon's own block codec of the same name, the reference: every block it
 * compresses, Paimon's decompressor gives back byte for byte (zstd: both speak zstd frames), and so
 * does its own decompressor, before and after its native contexts are released and made again.
 */
class SpillCodecTest {

    private static byte[] block(long seed, int length) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            // letters with runs: compressible, not trivially
            b[i] = (byte) ('a' + (random.nextInt(4) == 0 ? random.nextInt(26) : i % 7));
        }
        return b;
    }

    private static byte[] compress(BlockCompressor compressor, byte[] block) throws Exception {
        byte[] out = new byte[compressor.getMaxCompressedSize(block.length) + 3];
        int n = compressor.compress(block, 0, block.length, out, 3);
        return Arrays.copyOfRange(out, 3, 3 + n);
    }

    private static byte[] decompress(BlockDecompressor decompressor, byte[] compressed, int length) throws Exception {
        byte[] out = new byte[length + 5];
        int n = decompressor.decompress(compressed, 0, compressed.length, out, 5);
        assertThat(n).isEqualTo(length);
        return Arrays.copyOfRange(out, 5, 5 + n);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"zstd", "lz4"})
    void paimonsCodecReadsEveryBlockItWritesAndSoDoesItself(String name) throws Exception {
        CompressOptions options = new CompressOptions(name, 1);
        SpillCodec codec = SpillCodec.of(options);
        BlockDecompressor paimon = BlockCompressionFactory.create(options).getDecompressor();
        BlockCompressor compressor = codec.getCompressor();
        BlockDecompressor decompressor = codec.getDecompressor();
        for (int i = 0; i < 50; i++) {
            byte[] block = block(i, 1 + (i * 997) % 4096);
            byte[] compressed = compress(compressor, block);
            assertThat(decompress(paimon, compressed, block.length)).as("block %d read by Paimon's codec", i).isEqualTo(block);
            assertThat(decompress(decompressor, compressed, block.length)).as("block %d read by itself", i).isEqualTo(block);
            if (i % 10 == 9) {
                codec.release();
            }
        }
        assertThat(compress(compressor, block(7, 4096)).length).as("it compresses").isLessThan(4096);
        codec.release();
        codec.release();
    }

    @Test
    void aCodecPaimonsSpillReaderCannotReadIsRefused() {
        assertThat(SpillCodec.of(new CompressOptions("none", 1))).isNull();
    }
}
