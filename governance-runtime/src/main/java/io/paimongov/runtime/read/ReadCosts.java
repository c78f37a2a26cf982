package io.paimongov.runtime.read;

import io.paimongov.runtime.internal.formats.InputRowGroups;
import io.paimongov.runtime.internal.formats.InputRowGroups.FileUnits;
import io.paimongov.runtime.write.MeasuredFootprints;
import io.paimongov.runtime.write.SpillChannels;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Locale;
import java.util.function.ToLongFunction;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.utils.FileStorePathFactory;

/**
 * What one open reader of a governed read holds, as estimates from measurements and the files'
 * footers (docs/reads.md, "What a read is charged"). A reader of a data file holds:
 *
 * <ul>
 *   <li>its fixed state: the measured {@code reader} stage of {@link MeasuredFootprints} for the
 *       file's format (Parquet's where the format has no cell), plus {@value #READ_PATH_EXTRA}
 *       bytes the reader of a read holds beyond a compaction's (measured: live heap per open
 *       Parquet reader of a merge-on-read, one reader opened at a time, was that much above this
 *       estimate, on every file of two shapes: 256 rows of 2 KiB values and 2,000 rows of 100
 *       bytes);
 *   <li>the largest row group or stripe of the file, compressed, from its footer ({@link
 *       InputRowGroups}): Paimon's Parquet reader reads every column chunk of a row group before it
 *       decodes a row, and its ORC reader a stripe's streams; Avro files {@value #AVRO_BLOCK} bytes;
 *   <li>one batch of decoded rows: {@code read.batch-size} rows (at most the file's rows) of the
 *       file's widest decoded row, times {@value #BATCH_COST}, for the column vectors and the pages
 *       being decompressed into them. A read in smaller batches ({@link #withBatchRows}) shrinks
 *       the vectors only: the pages decompressed for a batch stay those of the table's batch size
 *       (measured from outside on 2 KiB rows under a budget that made the read shrink its batches:
 *       live heap 1.00 of the budget, where scaling the whole term gave 1.09 and 1.10).
 * </ul>
 *
 * Parquet's zstd streams with finalizers would keep finished row groups live beyond this; the read
 * puts Parquet's zstd codec without them in place first ({@code ParquetZstd}), as the write does.
 *
 * <p>Thread-safe; may read footers (one small read per file, kept per path).
 */
final class ReadCosts {

    /** Decoded rows of one batch cost this many times their width: the vectors and the decompressed pages. */
    static final double BATCH_COST = 2.0;
    /** What an Avro reader buffers: one block of its file, at most this. */
    static final long AVRO_BLOCK = 128 << 10;
    /** What a read's reader holds beyond the calibrated compaction reader; see the class comment. */
    static final long READ_PATH_EXTRA = 160 << 10;
    /** The page size whose calibration cells the read uses: readers take no pages. */
    private static final int CALIBRATED_PAGE = 64 << 10;

    private static final InputRowGroups UNITS = new InputRowGroups();

    private final FileIO fileIO;
    private final FileStorePathFactory paths;
    private final int batchRows;
    private final int fullBatchRows;

    private ReadCosts(FileIO fileIO, FileStorePathFactory paths, int batchRows, int fullBatchRows) {
        this.fileIO = fileIO;
        this.paths = paths;
        this.batchRows = Math.max(1, batchRows);
        this.fullBatchRows = Math.max(1, fullBatchRows);
    }

    /** The costs of readers of {@code table}'s files reading its {@code read.batch-size} rows at a time. */
    static ReadCosts of(FileStoreTable table) {
        int batchRows = table.coreOptions().toConfiguration().get(CoreOptions.READ_BATCH_SIZE);
        return new ReadCosts(table.fileIO(), table.store().pathFactory(), batchRows, batchRows);
    }

    /** The same costs at a smaller batch size: only the vectors of a batch shrink, not the pages decompressed for it. */
    ReadCosts withBatchRows(int rows) {
        return new ReadCosts(fileIO, paths, rows, fullBatchRows);
    }

    /** One open reader of {@code file} in bucket {@code bucket} of {@code partition}. */
    long file(BinaryRow partition, int bucket, DataFileMeta file) {
        String format = file.fileFormat().toLowerCase(Locale.ROOT);
        FileUnits units = UNITS.units(
                fileIO, paths.createDataFilePathFactory(partition, bucket).toPath(file), file, Math.min(file.fileSize(), AVRO_BLOCK));
        long fileRows = Math.max(1, file.rowCount());
        // Of the batch term (BATCH_COST batches), one batch is the vectors, which shrink with a smaller
        // batch; the rest are the pages decompressed for it, which do not.
        double batches = Math.min(batchRows, fileRows) + (BATCH_COST - 1) * Math.min(fullBatchRows, fileRows);
        return readerBytes(format) + READ_PATH_EXTRA + units.largestUnitBytes() + (long) Math.ceil(batches * units.rowBytes());
    }

    /** The rows of a batch these costs are for. */
    int batchRows() {
        return batchRows;
    }

    /** The most costly reader among the data files of {@code split}. */
    long mostCostly(DataSplit split) {
        long most = 0;
        for (DataFileMeta file : split.dataFiles()) {
            most = Math.max(most, file(split.partition(), split.bucket(), file));
        }
        return most;
    }

    /**
     * These costs when {@code least} of them fits in {@code freeBytes}; else the costs at a quarter
     * of the batch, and a quarter again, down to one row, the first whose {@code least} fits (or one
     * row). Only the vectors of a batch shrink ({@link #withBatchRows}).
     */
    ReadCosts fitting(ToLongFunction<ReadCosts> least, long freeBytes) {
        ReadCosts at = this;
        while (at.batchRows > 1 && least.applyAsLong(at) > freeBytes) {
            at = withBatchRows(Math.max(1, at.batchRows / 4));
        }
        return at;
    }

    /** What the budget of {@code context} has free now: its budget less what the context holds. */
    static long freeBytes(ResourceContext context) {
        MetricsSnapshot now = context.snapshot();
        return Math.max(0, now.budgetBytes() - now.reservedBytes());
    }

    /** One open spill channel of a spilled run, written or read. */
    long channel() {
        return SpillChannels.sortChannelBytes(CALIBRATED_PAGE);
    }

    private static long readerBytes(String format) {
        MeasuredFootprints measured = MeasuredFootprints.get();
        return measured.has("pk", format, "reader")
                ? measured.bytes("pk", format, "reader", CALIBRATED_PAGE)
                : measured.bytes("pk", "parquet", "reader", CALIBRATED_PAGE);
    }
}
