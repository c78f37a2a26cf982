package io.paimongov.runtime.internal.formats;

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
 * <p>{@link #units} adds the width of a row once decoded, which a reader's batch of rows takes: for
 * Parquet the largest row group's uncompressed bytes over its rows, for ORC the file's raw data size
 * over its rows; other formats answer the file's bytes per row.
 *
 * <p>Thread-safe (compaction threads and reads call it at once). May throw {@link
 * UncheckedIOException} when a footer cannot be read: the task that would read the file fails the
 * same way.
 */
public final class InputRowGroups {

    /**
     * What a reader of one data file holds besides its fixed state.
     *
     * @param largestUnitBytes the largest row group or stripe, compressed, as the footer gives it
     * @param rowBytes the widest decoded row, in bytes (at least 1)
     */
    public record FileUnits(long largestUnitBytes, long rowBytes) {}

    /** Paths whose answer is kept: a long and a path each, a few hundred KB at most. */
    static final int CACHED_FILES = 4096;

    private final Map<String, FileUnits> cache = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, FileUnits> eldest) {
            return size() > CACHED_FILES;
        }
    };

    /**
     * The largest row group or stripe of {@code file} at {@code path}, in bytes as the footer gives
     * them; {@code fallback} for a format read in small blocks.
     */
    public long largest(FileIO fileIO, Path path, DataFileMeta file, long fallback) {
        String format = file.fileFormat().toLowerCase(Locale.ROOT);
        return format.equals("parquet") || format.equals("orc") ? units(fileIO, path, file, fallback).largestUnitBytes() : fallback;
    }

    /**
     * The units a reader of {@code file} at {@code path} holds: its largest row group or stripe
     * ({@code fallback} for a format read in small blocks) and its widest decoded row.
     */
    public FileUnits units(FileIO fileIO, Path path, DataFileMeta file, long fallback) {
        String format = file.fileFormat().toLowerCase(Locale.ROOT);
        long perRow = Math.max(1, file.fileSize() / Math.max(1, file.rowCount()));
        if (!format.equals("parquet") && !format.equals("orc")) {
            return new FileUnits(fallback, perRow);
        }
        String key = path.toString();
        synchronized (cache) {
            FileUnits known = cache.get(key);
            if (known != null) {
                return known;
            }
        }
        FileUnits units;
        try {
            units = format.equals("parquet") ? parquet(fileIO, path, file.fileSize()) : OrcStripes.units(fileIO, path, perRow);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the footer of " + path + " to size its reader", e);
        }
        synchronized (cache) {
            cache.put(key, units);
        }
        return units;
    }

    private static FileUnits parquet(FileIO fileIO, Path path, long fileSize) throws IOException {
        long most = 0;
        long rowBytes = 1;
        try (ParquetFileReader reader = ParquetUtil.getParquetReader(fileIO, path, fileSize, new Options())) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                most = Math.max(most, block.getCompressedSize());
                if (block.getRowCount() > 0) {
                    rowBytes = Math.max(rowBytes, block.getTotalByteSize() / block.getRowCount());
                }
            }
        }
        return new FileUnits(most, rowBytes);
    }

    /** Its own class, so that Hadoop's classes, which Paimon's ORC reader needs, load only for ORC files. */
    private static final class OrcStripes {
        static FileUnits units(FileIO fileIO, Path path, long perRow) throws IOException {
            long most = 0;
            long rowBytes = perRow;
            try (Reader reader = OrcReaderFactory.createReader(new Configuration(), fileIO, path, null)) {
                for (StripeInformation stripe : reader.getStripes()) {
                    most = Math.max(most, stripe.getLength());
                }
                if (reader.getNumberOfRows() > 0) {
                    rowBytes = Math.max(rowBytes, reader.getRawDataSize() / reader.getNumberOfRows());
                }
            }
            return new FileUnits(most, rowBytes);
        }
    }
}
