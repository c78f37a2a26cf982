package io.paimongov.runtime.internal.formats;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.paimon.shade.org.apache.parquet.hadoop.codec.ZstandardCodec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The codec against Parquet's own as the reference: what one compresses the other decompresses to
 * the input, at the level, workers and buffer pool of the configuration, and both write frames of
 * the same size at the same level (the level reaches zstd).
 */
class ClosingZstdCodecTest {

    @ParameterizedTest
    @CsvSource({"1, 0, true", "7, 0, false", "3, 2, true"})
    void framesAreParquetsOwnBothWays(int level, int workers, boolean pool) throws Exception {
        Configuration conf = new Configuration(false);
        conf.setInt(ZstandardCodec.PARQUET_COMPRESS_ZSTD_LEVEL, level);
        conf.setInt(ZstandardCodec.PARQUET_COMPRESS_ZSTD_WORKERS, workers);
        conf.setBoolean(ZstandardCodec.PARQUET_COMPRESS_ZSTD_BUFFERPOOL_ENABLED, pool);
        ZstandardCodec parquets = new ZstandardCodec();
        parquets.setConf(conf);
        ClosingZstdCodec ours = new ClosingZstdCodec(conf);
        byte[] page = page(level);

        byte[] byOurs = compress(ours, page);
        byte[] byParquets = compress(parquets, page);
        assertThat(decompress(parquets, byOurs)).isEqualTo(page);
        assertThat(decompress(ours, byParquets)).isEqualTo(page);
        assertThat(decompress(ours, byOurs)).isEqualTo(page);
        assertThat(byOurs).hasSameSizeAs(byParquets).hasSizeLessThan(page.length);
    }

    /** About 256 KB of text with repeats: what a Parquet page of strings holds. */
    private static byte[] page(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 256 << 10) {
            sb.append("row-").append(random.nextInt(5_000)).append(random.nextBoolean() ? ",paimon" : ",governance").append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] compress(CompressionCodec codec, byte[] bytes) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream zstd = codec.createOutputStream(out)) {
            zstd.write(bytes, 0, bytes.length / 3);
            zstd.write(bytes, bytes.length / 3, bytes.length - bytes.length / 3);
        }
        return out.toByteArray();
    }

    private static byte[] decompress(CompressionCodec codec, byte[] bytes) throws Exception {
        try (InputStream zstd = codec.createInputStream(new ByteArrayInputStream(bytes))) {
            return zstd.readAllBytes();
        }
    }
}
