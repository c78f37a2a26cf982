package io.paimongov.runtime.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.paimon.format.orc.OrcReaderFactory;
import org.apache.paimon.format.parquet.ParquetUtil;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.Options;
import org.apache.paimon.shade.org.apache.orc.Reader;
import org.apache.paimon.shade.org.apache.orc.StripeInformation;
import org.apache.paimon.shade.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.BlockMetaData;

/**
 * The largest unit a reader of a data file holds at once, from the file's footer: for Parquet the
 * largest row group's compressed bytes (Paimon's Parquet reader reads every column chunk of a row
 * group into memory before it decodes a row), for ORC the largest stripe's bytes (its reader reads a
 * stripe's streams at once). Whoever wrote the file decides these sizes: a table written by plain
 * Paimon has row groups of up to {@code file.block-size}, 128 MB by default, whatever the governed
 * write would write itself. Other formats (Avro, read a block at a time) answer {@code fallback}.
 *
 * <p>Reading a footer costs one small read of the file's tail, which the task's reader repeats when
 * it opens the file; answers are kept per path ({@value #CACHED_FILES} at most, least recently used
 * dropped first), since data files never change.
 *
 * <p>Thread-safe (compaction threads call it at once). May throw {@link UncheckedIOException} when a
 * footer cannot be read: the task that would read the file fails the same way.
 */
final class InputRowGroups {

    /** Paths whose answer is kept: a long and a path each, a few hundred KB at most. */
    static final int CACHED_FILES = 4096;

    private final Map<String, Long> cache = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > CACHED_FILES;
        }
    };

    /**
     * The largest row group or stripe of {@code file} at {@code path}, in bytes as the footer gives
     * them; {@code fallback} for a format read in small blocks.
     */
    long largest(FileIO fileIO, Path path, DataFileMeta file, long fallback) {
        String format = file.fileFormat().toLowerCase(Locale.ROOT);
        if (!format.equals("parquet") && !format.equals("orc")) {
            return fallback;
        }
        String key = path.toString();
        synchronized (cache) {
            Long known = cache.get(key);
            if (known != null) {
                return known;
            }
        }
        long bytes;
        try {
            bytes = format.equals("parquet") ? largestRowGroup(fileIO, path, file.fileSize()) : OrcStripes.largest(fileIO, path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the footer of " + path + " to size its compaction reader", e);
        }
        synchronized (cache) {
            cache.put(key, bytes);
        }
        return bytes;
    }

    private static long largestRowGroup(FileIO fileIO, Path path, long fileSize) throws IOException {
        long most = 0;
        try (ParquetFileReader reader = ParquetUtil.getParquetReader(fileIO, path, fileSize, new Options())) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                most = Math.max(most, block.getCompressedSize());
            }
        }
        return most;
    }

    /** Its own class, so that Hadoop's classes, which Paimon's ORC reader needs, load only for ORC files. */
    private static final class OrcStripes {
        static long largest(FileIO fileIO, Path path) throws IOException {
            long most = 0;
            try (Reader reader = OrcReaderFactory.createReader(new Configuration(), fileIO, path, null)) {
                for (StripeInformation stripe : reader.getStripes()) {
                    most = Math.max(most, stripe.getLength());
                }
            }
            return most;
        }
    }
}
