package io.paimongov.runtime.internal.spill;

import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.ResourceExhaustedException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.RecordComparator;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.BinaryRowSerializer;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.ChannelReaderInputView;
import org.apache.paimon.disk.ChannelReaderInputViewIterator;
import org.apache.paimon.disk.ChannelWithMeta;
import org.apache.paimon.disk.ChannelWriterOutputView;
import org.apache.paimon.disk.FileChannelUtil;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.memory.MemorySegmentPool;
import org.apache.paimon.sort.BinaryInMemorySortBuffer;
import org.apache.paimon.sort.BinaryMergeIterator;
import org.apache.paimon.sort.QuickSort;
import org.apache.paimon.sort.SortBuffer;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.MutableObjectIterator;

/*
 * How it works. Rows go into Paimon's BinaryInMemorySortBuffer over the given pool. When the pool
 * has no page left (write) or someone asks for memory back (flushMemory), the buffer is sorted and
 * written as one run to a spill channel of the IOManager, and its pages go back to the pool. Runs
 * are kept in size tiers (SpillTiers): whenever a tier holds 2 x fanIn runs its oldest fanIn are
 * merged into one run of the next tier, so a row is rewritten at most once per tier, about
 * log_fanIn(spills) times, and not at all while the runs stay few enough for the final read. The sorted read merges at most fanIn streams: the runs left (merged down smallest first
 * while there are too many) and, without spilling it, what is still in memory.
 *
 * Two codecs. A run written from memory is, in the usual spill, read back once by the final read,
 * and so is a run the final read merges to come down to the fan-in; a run a full tier merges is the
 * rewrite of rows that were already spilled, may be merged again, and only tiny budgets make them.
 * So runs from memory and the final read's merges take the run codec (the governed write gives
 * lz4, fast) and tier merges the merge codec (the table's spill-compression, zstd by default,
 * small): each run keeps the codec it was written with. The final read's merges took the merge
 * codec before: at P4's 1.68 MB they rewrote a quarter of a writer's rows with zstd, and a buffer's
 * pass over 30,000 of P4's rows took 74 to 83 ms of CPU against 57 to 66 with lz4 there
 * (docs/performance.md, P4).
 *
 * Memory outside the pool. Every open spill channel keeps two compression blocks on the heap
 * (Paimon's ChannelReaderInputView and ChannelWriterOutputView: the block and the codec's
 * bound for it). At most fanIn + 1 channels are open at once (a merge's readers and its writer, or
 * the final read's readers), so the buffer charges (fanIn + 1) x bytesPerChannel to the reservation it is
 * given, once, when it is made; the number per channel is measured (docs/performance.md, the
 * spill-channel rows of the footprint table).
 *
 * Why not Paimon's BinaryExternalSortBuffer: it merges every run (the big merged one included)
 * whenever their count reaches the fan-in, and a spill through flushMemory never merges at all, so
 * the final read opens every run at once: quadratic rewriting at a small fan-in, unbounded open
 * channels at a large one.
 */
/**
 * A spillable {@link SortBuffer} with size-tiered merging and a bounded fan-in, over a pool of
 * pages and an {@link IOManager}. Same contract as Paimon's {@code BinaryExternalSortBuffer}:
 * {@link #write} always accepts a row that fits into an empty buffer (spilling as needed), {@link
 * #sortedIterator()} returns every row written since the last {@link #clear()} in key order, {@link
 * #flushMemory()} spills what is in memory, {@link #clear()} drops all rows and deletes the spill
 * files. Rows with equal keys come out in no promised order; put a sequence number in the key to
 * fix it (as Paimon's write buffer does).
 *
 * <p>Memory: pages from the pool (given back on every spill and on {@link #clear()}); spill
 * channel buffers charged to the reservation given to the constructor, {@link
 * #channelBytes(int, long)} of them, held until {@link #close()}.
 *
 * <p><b>Thread-safety:</b> not thread-safe; one writing thread, as Paimon's sort buffers. <b>May
 * throw:</b> {@link IOException} from the spill files (the {@link IOManager}'s spill budget and
 * cancellation included); {@link ResourceExhaustedException} from the constructor when the
 * reservation cannot grow. After an exception the buffer must be {@link #clear() cleared} or
 * {@link #close() closed}.
 */
public final class TieredSortBuffer implements SortBuffer, AutoCloseable {

    /**
     * The small spill compression block. Every open channel keeps two blocks on the heap, so the
     * block sets what a merge's fan-in costs: Paimon's {@code BinaryExternalSortBuffer} hard-codes
     * 64 KiB (about 133 KB per channel, measured); 4 KiB costs about a thirteenth of that (the
     * {@code tiered} spill-channel rows of the footprint table). A spill at 5% of its input makes
     * some 20 to 40 runs per buffer, and a fan-in that reads them all in one merge needs that many
     * channels: at 4 KiB they fit in an eighth of a 3 MiB budget, at 16 KiB they did not, and every
     * row was rewritten once more (spill bytes 2 x the input, docs/performance.md).
     */
    public static final int SMALL_BLOCK = 4 << 10;
    /**
     * The large spill compression block, for budgets whose fan-in stays wide at it ({@code
     * SpillChannels#tieredBlock}): zstd compresses an 8 KiB block in less time per byte than a
     * 4 KiB one, and the primary-key spilling writes of the scale grid's spill series ran 10 to 20%
     * faster with it (docs/log/performance-scale.md, Spill throughput); a channel costs about 17 KB (the
     * {@code tiered-8k} rows).
     */
    public static final int LARGE_BLOCK = 8 << 10;
    /** The least block a buffer takes: Paimon's channel views keep a block header in it. */
    static final int MIN_BLOCK = 1 << 10;

    private final BinaryRowSerializer serializer;
    private final RecordComparator comparator;
    private final BinaryInMemorySortBuffer memory;
    private final IOManager ioManager;
    private final SpillCodec runCodec;
    private final SpillCodec mergeCodec;
    private final int block;
    private final int fanIn;
    private final MemoryReservation reservation;
    private final long reservedBytes;
    /** Made at the first spill: making it earlier would fix the spill scope's directory before it exists. */
    private FileIOChannel.Enumerator enumerator;
    private final SpillTiers<Run> tiers;
    /** Runs on disk (in the tiers or being merged): deleted by {@link #clear()}. */
    private final Set<FileIOChannel.ID> liveRuns = new HashSet<>();
    /** Readers of the current sorted read, closed by {@link #clear()}. */
    private final List<FileIOChannel> openReaders = new ArrayList<>();

    private int rowsInMemory;
    private int rows;
    private boolean closed;

    private final SpillCounters counters = new SpillCounters();

    /**
     * @param rowType the rows written
     * @param keyFields the fields rows are sorted by, in order, ascending
     * @param pool where the in-memory buffer takes its pages; needs at least 3 free pages now
     * @param ioManager where runs are spilled (the write's governed one)
     * @param fanIn the most runs one merge or the final read opens, at least 2
     * @param runCompression the codec of runs written from memory and of the runs the sorted read
     *     merges to come down to the fan-in, each read once ({@code zstd}, {@code lz4} or {@code
     *     lzo}; Paimon's spill reader cannot read {@code none})
     * @param mergeCompression the codec of runs written by a merge of a full tier (the same choices)
     * @param block the spill compression block in bytes ({@link #SMALL_BLOCK} or {@link
     *     #LARGE_BLOCK}); {@code bytesPerChannel} must be measured at it
     * @param reservation grown by {@link #channelBytes(int, long) channelBytes(fanIn,
     *     bytesPerChannel)} now and shrunk by as much at {@link #close()}
     * @param bytesPerChannel heap one open spill channel keeps (measured: the {@code spill-channel}
     *     stage of the footprint table)
     * @throws IllegalArgumentException for a fan-in below 2, a block below 1 KiB, a codec {@code
     *     none}, a pool with fewer than 3 free pages, or a negative {@code bytesPerChannel}; {@code
     *     bytesPerChannel} must be measured for both codecs at {@code block}
     * @throws ResourceExhaustedException when the reservation cannot grow
     */
    public TieredSortBuffer(RowType rowType, int[] keyFields, MemorySegmentPool pool, IOManager ioManager, int fanIn,
            CompressOptions runCompression, CompressOptions mergeCompression, int block, MemoryReservation reservation,
            long bytesPerChannel) {
        if (fanIn < 2) {
            throw new IllegalArgumentException("fan-in must be at least 2: " + fanIn);
        }
        if (block < MIN_BLOCK) {
            throw new IllegalArgumentException("spill compression block must be at least " + MIN_BLOCK + " bytes: " + block);
        }
        if (bytesPerChannel < 0) {
            throw new IllegalArgumentException("bytes per spill channel must not be negative: " + bytesPerChannel);
        }
        if (pool.freePages() < 3) {
            throw new IllegalArgumentException("a sort buffer needs at least 3 free pages; the pool has " + pool.freePages());
        }
        this.block = block;
        this.runCodec = codec(runCompression);
        // One codec, and one set of native contexts, when both are the same.
        this.mergeCodec = mergeCompression.equals(runCompression) ? runCodec : codec(mergeCompression);
        List<DataType> types = rowType.getFieldTypes();
        this.comparator = CodeGenUtils.newRecordComparator(types, keyFields, true);
        this.serializer = new BinaryRowSerializer(rowType.getFieldCount());
        this.ioManager = ioManager;
        this.fanIn = fanIn;
        this.tiers = new SpillTiers<>(fanIn);
        this.reservation = reservation;
        this.reservedBytes = channelBytes(fanIn, bytesPerChannel);
        reservation.grow(reservedBytes);
        this.memory = BinaryInMemorySortBuffer.createBuffer(
                CodeGenUtils.newNormalizedKeyComputer(types, keyFields), new InternalRowSerializer(rowType), comparator, pool);
    }

    private static SpillCodec codec(CompressOptions compression) {
        SpillCodec codec = SpillCodec.of(compression);
        if (codec == null) {
            throw new IllegalArgumentException("spill compression '" + compression.compress()
                    + "' cannot be read back by Paimon's spill reader; use zstd, lz4 or lzo");
        }
        return codec;
    }

    /** Heap the spill channels of a buffer with this fan-in keep at most: {@code (fanIn + 1) x bytesPerChannel}. */
    public static long channelBytes(int fanIn, long bytesPerChannel) {
        return (fanIn + 1L) * bytesPerChannel;
    }

    @Override
    public boolean write(InternalRow record) throws IOException {
        while (!memory.write(record)) {
            if (rowsInMemory == 0) {
                throw new IOException("The record exceeds the maximum size of a sort buffer.");
            }
            spill();
        }
        rowsInMemory++;
        rows++;
        return true;
    }

    /** Spills what is in memory (nothing when it is empty); always true: the spill budget is the IOManager's. */
    @Override
    public boolean flushMemory() throws IOException {
        spill();
        return true;
    }

    @Override
    public MutableObjectIterator<BinaryRow> sortedIterator() throws IOException {
        if (tiers.size() == 0) {
            return memory.sortedIterator();
        }
        int inMemory = rowsInMemory > 0 ? 1 : 0;
        for (List<SpillTiers.Entry<Run>> m = tiers.takeSmallestDownTo(fanIn - inMemory); !m.isEmpty();
                m = tiers.takeSmallestDownTo(fanIn - inMemory)) {
            merge(m, runCodec);
        }
        List<MutableObjectIterator<BinaryRow>> streams = new ArrayList<>();
        for (Run run : tiers.runs()) {
            streams.add(reader(run, openReaders));
        }
        if (inMemory == 1) {
            streams.add(memory.sortedIterator());
        }
        counters.notePeak(openReaders.size());
        return new CopiedRows(mergeOf(streams));
    }

    @Override
    public int size() {
        return rows;
    }

    @Override
    public long getOccupancy() {
        return memory.getOccupancy();
    }

    /** Drops every row: pages back to the pool, readers closed, spill files deleted. Counters stay. */
    @Override
    public void clear() {
        memory.clear();
        for (FileIOChannel reader : openReaders) {
            closeAndDelete(reader);
        }
        openReaders.clear();
        for (FileIOChannel.ID id : liveRuns) {
            id.getPathFile().delete();
        }
        liveRuns.clear();
        runCodec.release();
        mergeCodec.release();
        tiers.clear();
        rowsInMemory = 0;
        rows = 0;
    }

    /** {@link #clear()}, then gives the channel reservation back. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                clear();
            } finally {
                reservation.shrink(reservedBytes);
            }
        }
    }

    /** What was spilled and merged so far. */
    SpillStats stats() {
        return counters.stats();
    }

    /** The fan-in this buffer was made with. */
    public int fanIn() {
        return fanIn;
    }

    private void spill() throws IOException {
        if (rowsInMemory == 0) {
            return;
        }
        new QuickSort().sort(memory);
        if (enumerator == null) {
            // Asking for a temp dir makes the governed spill scope first, so the enumerator names its
            // channels where the scope was made (its root may be a later one: SpillScope#make).
            ioManager.pickTempDir();
            enumerator = ioManager.createChannelEnumerator();
        }
        FileIOChannel.ID id = enumerator.next();
        liveRuns.add(id);
        ChannelWriterOutputView out = FileChannelUtil.createOutputView(ioManager, id, runCodec, block);
        try {
            memory.writeToOutput(out);
            out.close();
        } catch (IOException | RuntimeException e) {
            closeAndDelete(out);
            liveRuns.remove(id);
            throw e;
        }
        memory.clear();
        rowsInMemory = 0;
        counters.spilled(out);
        tiers.add(new Run(new ChannelWithMeta(id, out.getBlockCount(), out.getWriteBytes()), runCodec), 0, out.getNumBytes());
        for (List<SpillTiers.Entry<Run>> full = tiers.takeFullTier(); !full.isEmpty(); full = tiers.takeFullTier()) {
            merge(full, mergeCodec);
        }
    }

    /**
     * Merges {@code inputs} into one run one tier above the highest of them, written with {@code
     * codec}, and deletes them.
     */
    private void merge(List<SpillTiers.Entry<Run>> inputs, SpillCodec codec) throws IOException {
        List<FileIOChannel> readers = new ArrayList<>(inputs.size());
        FileIOChannel.ID id = ioManager.createChannel();
        liveRuns.add(id);
        ChannelWriterOutputView out = null;
        long rawBytes = 0;
        try {
            List<MutableObjectIterator<BinaryRow>> streams = new ArrayList<>(inputs.size());
            for (SpillTiers.Entry<Run> e : inputs) {
                streams.add(reader(e.run(), readers));
                rawBytes += e.bytes();
            }
            out = FileChannelUtil.createOutputView(ioManager, id, codec, block);
            counters.notePeak(readers.size() + 1);
            BinaryMergeIterator<BinaryRow> merged = mergeOf(streams);
            for (BinaryRow row = merged.next(); row != null; row = merged.next()) {
                serializer.serialize(row, out);
            }
            out.close();
        } catch (IOException | RuntimeException e) {
            if (out != null) {
                closeAndDelete(out);
            }
            liveRuns.remove(id);
            throw e;
        } finally {
            for (FileIOChannel reader : readers) {
                closeAndDelete(reader);
            }
        }
        for (SpillTiers.Entry<Run> e : inputs) {
            liveRuns.remove(e.run().channel().getChannel());
        }
        int tier = SpillTiers.tierAbove(inputs);
        counters.merged(inputs.size(), out, tier);
        tiers.add(new Run(new ChannelWithMeta(id, out.getBlockCount(), out.getWriteBytes()), codec), tier, rawBytes);
    }

    private MutableObjectIterator<BinaryRow> reader(Run run, List<FileIOChannel> opened) throws IOException {
        ChannelReaderInputView view = FileChannelUtil.createInputView(ioManager, run.channel(), opened, run.codec(), block);
        return new ChannelReaderInputViewIterator(view, null, serializer.duplicate());
    }

    private BinaryMergeIterator<BinaryRow> mergeOf(List<MutableObjectIterator<BinaryRow>> streams) throws IOException {
        List<BinaryRow> reuse = new ArrayList<>(streams.size());
        for (int i = 0; i < streams.size(); i++) {
            reuse.add(serializer.createInstance());
        }
        return new BinaryMergeIterator<>(streams, reuse, comparator::compare);
    }

    /** A spilled run and the codec it was written with. */
    private record Run(ChannelWithMeta channel, SpillCodec codec) {}

    private static void closeAndDelete(FileIOChannel channel) {
        try {
            channel.closeAndDelete();
        } catch (Throwable ignored) {
            // Best effort, as Paimon's own merger: the scope's deletion at close removes what is left.
        }
    }

    private static void closeAndDelete(ChannelWriterOutputView out) {
        try {
            out.closeAndDelete();
        } catch (Throwable ignored) {
            // As above.
        }
    }
}
