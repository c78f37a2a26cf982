package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.runtime.write.SpillChannels;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.compression.BlockCompressionFactory;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.BinaryRowSerializer;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.ChannelReaderInputView;
import org.apache.paimon.disk.ChannelReaderInputViewIterator;
import org.apache.paimon.disk.ChannelWithMeta;
import org.apache.paimon.disk.ChannelWriterOutputView;
import org.apache.paimon.disk.FileChannelUtil;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/*
 * The child side of the spill-channel calibration: the heap one open spill channel keeps, as a
 * merge of spilled runs opens them (Paimon's ChannelReaderInputView: an uncompressed block, a
 * compressed block and the codec's state, whatever the page size), for the compression block of
 * Paimon's sort buffer (format "sort", 64 KiB) or of the runtime's TieredSortBuffer ("tiered" at 4 KiB,
 * "tiered-8k" at 8 KiB). N runs of a few rows are spilled
 * with the cell's codec; after a warm-up that opens and reads a few runs (classes, codec pools), a
 * full collection gives the baseline; then all N runs are opened and their first row read, as a
 * merge does before it compares heads; the live heap above the baseline, the readers still
 * reachable, is what N channels keep. The parent takes the slope between two N, so what does not
 * grow with N falls out. Native memory a codec holds outside the heap is not in this number.
 */
final class SpillChannelProbe {

    static final String STAGE = "spill-channel";
    /** The tiered buffer's compression blocks, one spill format each. */
    private static final List<Integer> TIERED_BLOCKS = SpillChannels.TIERED_BLOCKS;
    /**
     * Spill cells' formats: Paimon's sort buffer (64 KiB compression blocks), then the runtime's
     * tiered one at each of {@link #TIERED_BLOCKS} ({@link SpillChannels#tieredFormat}).
     */
    static final List<String> FORMATS = formats();
    private static final int WARM_UP_CHANNELS = 4;
    private static final RowType ROW = RowType.of(DataTypes.INT().notNull(), DataTypes.STRING());

    private SpillChannelProbe() {}

    /**
     * One cell at one channel count: {@code FORMAT COMPRESSION VALUE_BYTES PAGE_SIZE ROWS_PER_RUN
     * CHANNELS WORK_DIR}, {@code FORMAT} one of {@link #FORMATS}. Prints one line {@code FOOTPRINT
     * writers=N spill-channel=B spill-channelPages=0}.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: SpillChannelProbe sort|tiered|tiered-8k COMPRESSION VALUE_BYTES PAGE_SIZE ROWS_PER_RUN CHANNELS WORK_DIR");
            System.exit(2);
        }
        int block = block(args[0]);
        BlockCompressionFactory codec = BlockCompressionFactory.create(new CompressOptions(args[1], 1));
        int valueBytes = Integer.parseInt(args[2]);
        int rows = Integer.parseInt(args[4]);
        int channels = Integer.parseInt(args[5]);
        Path work = Files.createDirectories(Path.of(args[6]));
        IOManager io = IOManager.create(work.toString());
        try {
            List<ChannelWithMeta> runs = spill(io, codec, block, channels + WARM_UP_CHANNELS, rows, valueBytes);
            List<FileIOChannel> warm = new ArrayList<>();
            for (ChannelReaderInputViewIterator it : open(io, codec, block, runs.subList(0, WARM_UP_CHANNELS), warm)) {
                while (it.next() != null) {
                    // read to the end, as a merge does
                }
            }
            warm.forEach(FileIOChannel::deleteChannel);
            long baseline = FootprintProbe.liveHeapBytes();
            List<FileIOChannel> opened = new ArrayList<>();
            List<ChannelReaderInputViewIterator> readers = open(io, codec, block, runs.subList(WARM_UP_CHANNELS, runs.size()), opened);
            List<BinaryRow> heads = new ArrayList<>();
            for (ChannelReaderInputViewIterator it : readers) {
                heads.add(it.next(new BinaryRow(ROW.getFieldCount())));
            }
            long held = FootprintProbe.liveHeapBytes() - baseline;
            Reference.reachabilityFence(readers);
            Reference.reachabilityFence(heads);
            for (FileIOChannel c : opened) {
                c.closeAndDelete();
            }
            System.out.println(FootprintProbe.RESULT + " writers=" + channels + " " + STAGE + "=" + held + " " + STAGE + "Pages=0");
        } finally {
            io.close();
            BenchTables.deleteTree(work);
        }
    }

    private static List<String> formats() {
        List<String> formats = new ArrayList<>(List.of("sort"));
        TIERED_BLOCKS.forEach(block -> formats.add(SpillChannels.tieredFormat(block)));
        return List.copyOf(formats);
    }

    /** The compression block of a spill cell's format: Paimon's 64 KiB, or one of the tiered buffer's. */
    static int block(String format) {
        if (format.equals("sort")) {
            return 64 << 10;
        }
        int tiered = FORMATS.indexOf(format) - 1;
        if (tiered >= 0) {
            return TIERED_BLOCKS.get(tiered);
        }
        throw new IllegalArgumentException("spill format must be one of " + FORMATS + ", not '" + format + "'");
    }

    private static List<ChannelWithMeta> spill(IOManager io, BlockCompressionFactory codec, int block, int count, int rows, int valueBytes)
            throws Exception {
        InternalRowSerializer rowSerializer = new InternalRowSerializer(ROW);
        BinaryRowSerializer serializer = new BinaryRowSerializer(ROW.getFieldCount());
        BenchTables.Rows values = new BenchTables.Rows(23, 1, valueBytes);
        FileIOChannel.Enumerator enumerator = io.createChannelEnumerator();
        List<ChannelWithMeta> runs = new ArrayList<>(count);
        for (int c = 0; c < count; c++) {
            FileIOChannel.ID id = enumerator.next();
            ChannelWriterOutputView out = FileChannelUtil.createOutputView(io, id, codec, block);
            for (int r = 0; r < rows; r++) {
                GenericRow row = values.next();
                serializer.serialize(rowSerializer.toBinaryRow(GenericRow.of(r, row.getString(1))).copy(), out);
            }
            out.close();
            runs.add(new ChannelWithMeta(id, out.getBlockCount(), out.getWriteBytes()));
        }
        return runs;
    }

    private static List<ChannelReaderInputViewIterator> open(IOManager io, BlockCompressionFactory codec, int block, List<ChannelWithMeta> runs,
            List<FileIOChannel> opened) throws Exception {
        BinaryRowSerializer serializer = new BinaryRowSerializer(ROW.getFieldCount());
        List<ChannelReaderInputViewIterator> readers = new ArrayList<>(runs.size());
        for (ChannelWithMeta run : runs) {
            ChannelReaderInputView view = FileChannelUtil.createInputView(io, run, opened, codec, block);
            readers.add(new ChannelReaderInputViewIterator(view, null, serializer.duplicate()));
        }
        return readers;
    }
}
