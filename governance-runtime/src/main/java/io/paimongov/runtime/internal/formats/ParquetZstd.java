package io.paimongov.runtime.internal.formats;

import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.shade.org.apache.parquet.hadoop.CodecFactory;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Puts {@link ClosingZstdCodec} where Parquet looks its zstd codec up: Parquet's {@code CodecFactory}
 * keeps one codec per JVM for each codec and level, under the key {@code <codec class>:<level>}, and
 * creates one only for a key it does not hold. The level of a Paimon table's Parquet files is its
 * {@code parquet.compression.codec.zstd.level} option, else {@code file.compression.zstd-level}
 * (Paimon's {@code ParquetFileFormat}); the codec reads the table's other {@code parquet.} options
 * (workers, buffer pool) as the one Parquet would create for it does, the first table of a level
 * deciding them as in Parquet.
 *
 * <p>The cache is the JVM's: once a governed write opened a table, every Parquet reader and writer
 * of Paimon in the JVM at that level uses the codec, the host's own included. Its frames are the same
 * zstd frames; only the streams' finalizers are gone. Thread-safe: the cache is Parquet's
 * synchronized map, and a check and its put are made under its lock.
 */
public final class ParquetZstd {

    static final String LEVEL_KEY = "parquet.compression.codec.zstd.level";
    private static final String PREFIX = "parquet.";

    private ParquetZstd() {}

    /** Installs the codec for the Parquet files of a table with options {@code tableOptions}; idempotent. */
    public static void install(Map<String, String> tableOptions) {
        String key = key(tableOptions);
        Map<String, CompressionCodec> codecs = Codecs.cache();
        synchronized (codecs) {
            if (!(codecs.get(key) instanceof ClosingZstdCodec)) {
                codecs.put(key, new ClosingZstdCodec(conf(tableOptions)));
            }
        }
    }

    /** The cache key Parquet looks the codec of a table with {@code tableOptions} up by. */
    static String key(Map<String, String> tableOptions) {
        return CompressionCodecName.ZSTD.getHadoopCompressionCodecClassName() + ":" + level(tableOptions);
    }

    private static String level(Map<String, String> tableOptions) {
        String given = tableOptions.get(LEVEL_KEY);
        return given != null ? given : String.valueOf(Options.fromMap(tableOptions).get(CoreOptions.FILE_COMPRESSION_ZSTD_LEVEL));
    }

    private static Configuration conf(Map<String, String> tableOptions) {
        Configuration conf = new Configuration(false);
        tableOptions.forEach((k, v) -> {
            if (k.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
                conf.set(PREFIX + k.substring(PREFIX.length()), v);
            }
        });
        conf.set(LEVEL_KEY, level(tableOptions));
        return conf;
    }

    /** Parquet's codec cache, which it keeps protected for its subclasses. Never instantiated. */
    static final class Codecs extends CodecFactory {
        private Codecs() {
            super(new Configuration(false), 0);
        }

        static Map<String, CompressionCodec> cache() {
            return CODEC_BY_NAME;
        }
    }
}
