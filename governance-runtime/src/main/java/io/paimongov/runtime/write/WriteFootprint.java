package io.paimongov.runtime.write;

import io.paimongov.runtime.config.Sizes;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.table.FileStoreTable;

/**
 * What a governed write sets on the table and what it reserves outside pages. Paimon's {@code
 * write-buffer-size} only bounds the sort buffer; the rest of a writer's memory (format encoders,
 * spill I/O buffers, compaction readers and writers) is bounded here by table options and reserved
 * as estimates through the same budget. {@code docs/metrics.md} explains each number.
 *
 * <p>Options set (through {@code table.copy}). Always: {@code async-file-write=false} (its queue
 * lives outside any budget and an interrupted async flush leaves an orphan data file) and {@code
 * page-size} = the allocator's page size (the pages are the allocator's). Only when the user did
 * not set them:
 *
 * <ul>
 *   <li>{@code write-buffer-spillable=true} for primary-key tables;
 *   <li>{@code file.block-size} (Parquet row group) and {@code orc.stripe.size} = budget / 32
 *       ({@value #ROW_GROUP_SHARE}), from 64k to 128m; for append tables that buffer their rows
 *       in pages budget / {@value #BUFFERED_APPEND_ROW_GROUP_SHARE} up to 1 MiB where that is
 *       more ({@link #rowGroupBytes});
 *   <li>{@code parquet.page.size} = {@value #PARQUET_PAGE_SIZE} bytes;
 *   <li>{@code orc.compress.size} = {@value #ORC_COMPRESS_SIZE} bytes;
 *   <li>{@code local-sort.max-num-file-handles}, the spill merge fan-in: primary-key tables spill
 *       through the runtime's tiered buffer ({@link TieredWriteBuffers}), as many channels as fit
 *       in 1/{@value SpillChannels#TIERED_CHANNEL_SHARE} of the budget, from {@value
 *       SpillChannels#MIN_TIERED_FAN_IN} to {@link SpillChannels#maxTieredFanIn} (128 at 4 KiB
 *       blocks, 64 at 8 KiB), a channel costing the measured bytes at the tiered buffer's block
 *       ({@link SpillChannels#tieredBlock}, {@link SpillChannels#tieredChannelBytes}); append
 *       tables through Paimon's buffer, as many as fit in an eighth of the budget, from {@value
 *       SpillChannels#MIN_SPILL_FAN_IN} to 128, at the measured {@code sort} bytes ({@link
 *       SpillChannels#sortChannelBytes}).
 * </ul>
 *
 * <p>Immutable; thread-safe.
 *
 * @param tableOptions table options the governed write sets
 * @param primaryKey whether the table has a primary key
 * @param formatBufferBytes estimated buffer of one open data-file writer (row group, stripe or Avro
 *     block)
 * @param perWriterBytes reserved per open (partition, bucket) writer: its measured footprint outside
 *     pages ({@link MeasuredFootprints}; primary key: the larger of buffering and idle after a flush;
 *     buffered append: idle; unbuffered append: its open data file, plus, for Parquet and ORC, the
 *     format buffer it may fill, plus, for Parquet, the stream buffer ({@link
 *     BufferedPositionOutput#SIZE}))
 * @param flushWriterBytes reserved once: the file writer a flush of the write buffer opens (one at
 *     a time): the measured open data file plus, for Parquet and ORC, the format buffer it may fill,
 *     plus, for Parquet, the stream buffer
 * @param buffersInPages whether a writer keeps its rows in the pool's pages (primary-key and
 *     buffered append tables) and so needs its first pages when it opens
 * @param minWriterBufferBytes the least write buffer a writer of its own should have room for: the
 *     larger of its first pages and 1/{@value #MIN_BUFFER_SHARE} of the budget; 0 for writers that
 *     buffer no rows in pages
 * @param spillIoBytes reserved once: spill channel buffers of a write-buffer spill and merge
 *     (primary-key tables: the merge fan-in plus one; buffered append tables: {@value
 *     #APPEND_SPILL_CHANNELS}, since their buffer never merges)
 * @param closedMessageBytes what the commit message of a writer closed before prepareCommit keeps
 *     on the heap per data file it names, until prepareCommit takes it: the measured {@code
 *     message} stage of {@link MeasuredFootprints}
 * @param compactionBytes the most working memory one compaction task may need, merge readers plus
 *     one output writer: what the write keeps room for, and what a task is charged when its input
 *     is not known. The output writer is the measured open data file plus its format buffer and
 *     (Parquet) stream buffer; each
 *     reader its measured {@code reader} bytes plus one format buffer (a row group or stripe read).
 *     A task of Paimon's merge tree is charged for its own input ({@link CompactionTaskMemory}).
 * @param compactionOutputBytes a compaction task's output writer: the measured open data file plus,
 *     for Parquet and ORC, its format buffer, plus, for Parquet, the stream buffer
 * @param readerBytes what one open compaction reader keeps besides the row group it reads: the
 *     measured {@code reader} stage of {@link MeasuredFootprints} (kind {@code pk}; append readers
 *     are charged the same)
 * @param spillBlockBytes the compression block of the runtime's tiered spill buffers, the
 *     primary-key writers' and the shared sort's: {@link SpillChannels#tieredBlock} of the budget
 * @param spillRunCodec the codec of the runs the tiered spill buffers write from memory and merge
 *     for their sorted read: {@value #SPILL_RUN_CODEC}, or the table's {@code spill-compression}
 *     when the table sets it; the runs a full tier merges take the table's codec
 */
public record WriteFootprint(
        Map<String, String> tableOptions,
        boolean primaryKey,
        long formatBufferBytes,
        long perWriterBytes,
        long flushWriterBytes,
        long spillIoBytes,
        long compactionBytes,
        boolean buffersInPages,
        long minWriterBufferBytes,
        long closedMessageBytes,
        long compactionOutputBytes,
        long readerBytes,
        int spillBlockBytes,
        String spillRunCodec) {

    /**
     * Spill channels a buffered append writer opens at once: Paimon's {@code ExternalBuffer} writes
     * one run at a time and reads its runs back one after another, never merging them; one writer
     * and one reader are charged.
     */
    static final long APPEND_SPILL_CHANNELS = 2;
    /**
     * The spill codec of append tables unless the table sets its own ({@code spill-compression},
     * Paimon's default zstd). Their write buffer spills through Paimon's {@code ExternalBuffer},
     * whose zstd codec opens and ends a zstd stream for every 64 KiB block and cannot be given
     * another. In the spill series (8 writers, 3 MiB against 63 MB of input, warmed up) append
     * writes kept 0.48 to 0.59 of their in-memory throughput with lz4 and 0.33 to 0.47 with zstd,
     * for 1.02 times the input in spill files (0.62 with zstd).
     * Primary-key tables spill through {@code TieredSortBuffer}, whose zstd keeps one context.
     */
    static final String APPEND_SPILL_CODEC = "lz4";

    /**
     * The codec of the runs the tiered spill buffers (primary-key writers, the shared sort) write
     * from memory and merge for their final read, unless the table sets {@code spill-compression}.
     * Such a run is read back once, by the final read; the runs a full tier merges, which only small
     * budgets make and which may be merged again, keep the table's codec (zstd by default). In the
     * spill series' primary-key ORC pair (8 writers, 6 MiB against 125.8 MB of input, 5 runs a side)
     * the spilling write took 3.38 s with lz4 runs against 3.72 s with zstd, and its spill bytes
     * went from 0.50 to 0.86 of the input (docs/log/performance-scale.md, Spill throughput).
     */
    public static final String SPILL_RUN_CODEC = "lz4";

    /**
     * What a compaction charges per Avro file it reads (a block read back and decompressed). An
     * Avro file being written is not charged this on top of its measured bytes: its writer keeps
     * one block buffer of fixed size, which the measured {@code open} and {@code file} stages
     * already hold ({@link #fillsWithRows}).
     */
    static final long AVRO_BUFFER = 128 << 10;
    /**
     * The Parquet page size a governed write sets unless the table sets its own. Parquet's
     * compressor keeps a buffer of one page per file: its 1 MiB default costs 1.12 MB of heap per
     * open file against 137 KB at 64 KiB (measured, docs/performance.md). With zstd the buffer also
     * outlives the file: every page is compressed through a new zstd-jni stream that has a
     * finalizer and refers to the buffer, so each closed file keeps one page until a collection has
     * found its streams and the finalizer thread has run. A write that closes a file per writer (the
     * shared sort's drain, 2,048 writers) kept 131 such buffers at 64 KiB, 8.6 MB: its live heap
     * was 0.17 above its accounted peak, and 0.05 at 16 KiB, with files 1.4 to 2% larger and no
     * slower (docs/log/performance-scale.md, Heap drift and Parquet's zstd finalizers). The measured
     * footprints are taken at this page size.
     */
    public static final int PARQUET_PAGE_SIZE = 16 << 10;
    /** What each byte of Parquet page size above {@link #PARQUET_PAGE_SIZE} adds to an open file (measured slope from 64 KiB to 1 MiB). */
    static final double PARQUET_PAGE_COST = 1.05;
    /**
     * The most an ORC compression block may hold ({@code orc.compress.size}), which a governed write
     * sets unless the table sets its own. ORC writes blocks of the smaller of this and a size it
     * derives from the stripe (stripe / (20 x columns), rounded up to a power of two from 4 KiB),
     * and a reader keeps one decompression buffer of the file's block size. At ORC's default of 256
     * KiB the footprint table had been measured on 256 KiB blocks, which a write of budget / 32
     * stripes only writes at budgets of hundreds of MiB: a compaction reader measured 370 KB against
     * 125 KB at 16 KiB blocks and 112 KB at the 4 KiB blocks of a 6 MiB budget's 192 KiB stripes,
     * so a compaction task's room was charged 1.5 MB more than it held (docs/log/performance-scale.md, ORC's
     * compression blocks). 16 KiB is what the stripes of a 64 MiB budget give a file of 7 or 8
     * columns anyway. The measured footprints are taken at this size, an upper bound for every
     * budget.
     */
    public static final int ORC_COMPRESS_SIZE = 16 << 10;
    /**
     * What each byte of ORC compression block above {@link #ORC_COMPRESS_SIZE} adds to a compaction
     * reader (one decompression buffer: 370,307 B measured at 256 KiB against 124,571 B at 16 KiB).
     */
    static final double ORC_BLOCK_READER_COST = 1.0;
    /**
     * Row groups and stripes ({@code file.block-size}, {@code orc.stripe.size}) are this share of the
     * budget unless the table sets them: a primary-key write may hold eight at once (its flush
     * writer, and a compaction task's output and its {@code num-sorted-run.compaction-trigger} + 1
     * readers at Paimon's default), a quarter of the budget.
     */
    static final int ROW_GROUP_SHARE = 32;
    /**
     * The share for append tables that buffer their rows in pages ({@code write-buffer-for-append}):
     * they hold at most three at once (the flush writer, and a compaction task's one reader and its
     * output), so twice the size is under a fifth of the budget. ORC's smaller stripes cost time:
     * at 6 MiB its 192 KiB stripes are written in 4 KiB compression blocks (stripe / (20 x
     * columns)), each compressed with a new zstd context, and the spilling append ORC write of the
     * spill series took a median 2.09 s against 1.76 s at 384 KiB (5 children each; Parquet's was
     * unchanged, 2.27 s against 2.24 s; docs/log/performance-scale.md, Spill throughput). Only up to {@link
     * #BUFFERED_APPEND_ROW_GROUP_MAX}.
     */
    static final int BUFFERED_APPEND_ROW_GROUP_SHARE = 16;
    /**
     * The larger share stops here (then budget / {@value #ROW_GROUP_SHARE} takes over, from 32 MiB
     * up): from 1 MiB stripes a few-column ORC file's blocks reach {@link #ORC_COMPRESS_SIZE}
     * anyway, and a larger row group is only reserved, not filled, by a write whose writers flush
     * less than it: the quick grid's 8-writer append Parquet cell (2.5 MB per writer) read a heap
     * drift of -0.18 with 4 MiB row groups at 64 MiB against -0.11 with 2 MiB.
     */
    static final long BUFFERED_APPEND_ROW_GROUP_MAX = 1 << 20;

    /** The row group and stripe for {@code budgetBytes}, before the 64k..128m clamp. */
    static long rowGroupBytes(long budgetBytes, boolean bufferedAppend) {
        long share = budgetBytes / ROW_GROUP_SHARE;
        return bufferedAppend ? Math.max(share, Math.min(budgetBytes / BUFFERED_APPEND_ROW_GROUP_SHARE, BUFFERED_APPEND_ROW_GROUP_MAX)) : share;
    }
    /** A writer of its own should have room for at least this share of the budget as write buffer. */
    static final int MIN_BUFFER_SHARE = 64;

    /** A footprint of these values; {@link #plan} computes them for a table. Copies {@code tableOptions}. */
    public WriteFootprint {
        tableOptions = Map.copyOf(tableOptions);
    }

    /** Plans the options and estimates for {@code table} under {@code budgetBytes}. */
    public static WriteFootprint plan(FileStoreTable table, long budgetBytes, int pageSize) {
        Map<String, String> given = table.options();
        Map<String, String> set = new HashMap<>();
        boolean primaryKey = !table.primaryKeys().isEmpty();

        set.put(CoreOptions.ASYNC_FILE_WRITE.key(), "false");
        set.put(CoreOptions.PAGE_SIZE.key(), Long.toString(pageSize));
        if (primaryKey && !given.containsKey(CoreOptions.WRITE_BUFFER_SPILLABLE.key())) {
            set.put(CoreOptions.WRITE_BUFFER_SPILLABLE.key(), "true");
        }
        // Table modes: the lookup cache from the budget, a write buffer for append tables (TableMode).
        Map<String, String> modeOptions = TableMode.of(table).options(given, budgetBytes);
        Map<String, String> moded = new HashMap<>(given);
        moded.putAll(modeOptions);
        boolean bufferedAppend = !primaryKey && new CoreOptions(moded).useWriteBufferForAppend();
        long rowGroup = clamp(rowGroupBytes(budgetBytes, bufferedAppend), 64 << 10, 128 << 20);
        putIfAbsent(given, set, "file.block-size", Long.toString(rowGroup));
        putIfAbsent(given, set, "orc.stripe.size", Long.toString(rowGroup));
        putIfAbsent(given, set, "parquet.page.size", Integer.toString(PARQUET_PAGE_SIZE));
        putIfAbsent(given, set, "orc.compress.size", Integer.toString(ORC_COMPRESS_SIZE));
        if (!primaryKey) {
            putIfAbsent(given, set, CoreOptions.SPILL_COMPRESSION.key(), APPEND_SPILL_CODEC);
        }
        // A primary-key writer spills through the tiered buffer unless its spill codec is one the
        // tiered buffer cannot read back; then it keeps Paimon's, whose channels cost more.
        boolean tiered = primaryKey && TieredWriteBuffers.readsBack(new CoreOptions(given).spillCompressOptions());
        int block = SpillChannels.tieredBlock(budgetBytes, pageSize);
        long channelBytes = tiered ? SpillChannels.tieredChannelBytes(pageSize, block) : SpillChannels.sortChannelBytes(pageSize);
        long fan = tiered
                ? clamp(budgetBytes / SpillChannels.TIERED_CHANNEL_SHARE / channelBytes, SpillChannels.MIN_TIERED_FAN_IN,
                        SpillChannels.maxTieredFanIn(block))
                : clamp(budgetBytes / 8 / channelBytes, SpillChannels.MIN_SPILL_FAN_IN, 128);
        putIfAbsent(given, set, CoreOptions.LOCAL_SORT_MAX_NUM_FILE_HANDLES.key(), Long.toString(fan));
        set.putAll(modeOptions);

        Map<String, String> effective = new HashMap<>(given);
        effective.putAll(set);
        CoreOptions core = new CoreOptions(effective);
        long formatBuffer = formatBuffer(core, effective, primaryKey);
        boolean spillable = primaryKey && core.writeBufferSpillable();

        String format = core.fileFormatString().toLowerCase(Locale.ROOT);
        MeasuredFootprints measured = MeasuredFootprints.get();
        boolean buffered = primaryKey || bufferedAppend;
        long openFile =
                measured.bytes(primaryKey ? "pk" : "append", format, primaryKey ? "file" : "open", pageSize)
                        + (fillsWithRows(format) ? formatBuffer : 0)
                        + excessOver(format, effective, "parquet", "parquet.page.size", PARQUET_PAGE_SIZE, PARQUET_PAGE_COST)
                        // The calibration measured Paimon's own writers, whose streams do not buffer.
                        + (format.equals(BufferedPositionOutput.FORMAT) ? BufferedPositionOutput.SIZE : 0);
        long perWriter =
                primaryKey
                        ? Math.max(measured.bytes("pk", format, "open", pageSize), measured.bytes("pk", format, "idle", pageSize))
                        : bufferedAppend ? measured.bytes("append", format, "idle", pageSize) : openFile;
        long flushWriter = buffered ? openFile : 0;
        long spillIo = spillable
                ? (core.localSortMaxNumFileHandles() + 1L) * channelBytes
                : bufferedAppend ? APPEND_SPILL_CHANNELS * channelBytes : 0;
        long readers = primaryKey ? core.numSortedRunCompactionTrigger() + 1L : 1L;
        long reader = measured.bytes("pk", format, "reader", pageSize)
                + excessOver(format, effective, "orc", "orc.compress.size", ORC_COMPRESS_SIZE, ORC_BLOCK_READER_COST);
        long compaction = readers * (reader + formatBuffer) + openFile;
        long minBuffer = buffered ? Math.max((long) GovernedTableWrite.MIN_WRITER_PAGES * pageSize, budgetBytes / MIN_BUFFER_SHARE) : 0;
        long message = measured.bytes(primaryKey ? "pk" : "append", format, "message", pageSize);
        String runCodec = given.containsKey(CoreOptions.SPILL_COMPRESSION.key()) ? core.spillCompressOptions().compress() : SPILL_RUN_CODEC;
        return new WriteFootprint(
                set, primaryKey, formatBuffer, perWriter, flushWriter, spillIo, compaction, buffered, minBuffer, message, openFile, reader,
                block, runCodec);
    }

    /** This footprint with {@code bytes} more per writer (a table mode's own per-writer state). */
    public WriteFootprint plusPerWriter(long bytes) {
        return bytes == 0
                ? this
                : new WriteFootprint(tableOptions, primaryKey, formatBufferBytes, perWriterBytes + bytes, flushWriterBytes,
                        spillIoBytes, compactionBytes, buffersInPages, minWriterBufferBytes, closedMessageBytes, compactionOutputBytes, readerBytes,
                        spillBlockBytes, spillRunCodec);
    }

    /**
     * The codec of the runs a tiered spill buffer writes from memory, at the level of {@code
     * merged}, the codec of the runs its full tiers merge (the table's {@code spill-compression}).
     */
    CompressOptions spillRunCompression(CompressOptions merged) {
        return spillRunCompression(spillRunCodec, merged);
    }

    /** The codec {@code runCodec} at the level of {@code merged}. */
    static CompressOptions spillRunCompression(String runCodec, CompressOptions merged) {
        return new CompressOptions(runCodec, merged.zstdLevel());
    }

    private static long formatBuffer(CoreOptions core, Map<String, String> effective, boolean primaryKey) {
        long target = core.targetFileSize(primaryKey);
        String format = core.fileFormatString().toLowerCase(Locale.ROOT);
        return switch (format) {
            case "parquet" -> Math.min(target, Sizes.parse("file.block-size", effective.get("file.block-size")));
            case "orc" -> Math.min(target, Sizes.parse("orc.stripe.size", effective.get("orc.stripe.size")));
            default -> Math.min(target, AVRO_BUFFER);
        };
    }

    /**
     * Whether an open file writer of {@code format} keeps its rows on the heap until a row group
     * (Parquet) or stripe (ORC) is full, so that it grows from the measured open writer, which
     * holds a few rows, up to {@link #formatBufferBytes()}. An Avro writer encodes each row into a
     * block buffer of fixed size and writes the block out when it is full: the calibration measured
     * an open append Avro writer at 95.7 KB after 32, 512 and 2,048 rows of 64 B and 1 KiB values
     * (docs/performance.md), so its measured bytes are all it keeps.
     */
    static boolean fillsWithRows(String format) {
        return !format.equals("avro");
    }

    /**
     * The measured cells use {@code measuredAt} for {@code key}, a {@code forFormat} option: what a
     * table's larger value costs, {@code perByte} for each byte above it (Parquet's page per open
     * file, ORC's block per compaction reader); 0 for another format.
     */
    private static long excessOver(
            String format, Map<String, String> effective, String forFormat, String key, int measuredAt, double perByte) {
        if (!format.equals(forFormat)) {
            return 0;
        }
        long value = Sizes.parse(key, effective.get(key));
        return value <= measuredAt ? 0 : (long) Math.ceil((value - measuredAt) * perByte);
    }

    private static void putIfAbsent(Map<String, String> given, Map<String, String> set, String key, String value) {
        if (!given.containsKey(key)) {
            set.put(key, value);
        }
    }

    private static long clamp(long value, long min, long max) {
        return Math.max(min, Math.min(max, value));
    }
}
