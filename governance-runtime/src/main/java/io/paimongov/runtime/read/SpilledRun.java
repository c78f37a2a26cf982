package io.paimongov.runtime.read;

import java.io.IOException;
import java.util.ArrayList;
import org.apache.paimon.KeyValue;
import org.apache.paimon.compression.BlockCompressionFactory;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.serializer.BinaryRowSerializer;
import org.apache.paimon.disk.ChannelReaderInputView;
import org.apache.paimon.disk.ChannelReaderInputViewIterator;
import org.apache.paimon.disk.ChannelWithMeta;
import org.apache.paimon.disk.ChannelWriterOutputView;
import org.apache.paimon.disk.FileChannelUtil;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.KeyValueWithLevelNoReusingSerializer;

/**
 * An intermediate run of a merge in passes, on disk in the context's spill scope: every record of
 * the runs it merged, in merge order (key, sequence fields, sequence number), with its sequence
 * number, kind and level, through Paimon's spill channels ({@link FileChannelUtil}, blocks of
 * {@value #BLOCK} bytes in the table's {@code spill-compression}). Reading it hands out new record
 * objects. Its file is deleted when its reader closes, or by {@link #delete()}.
 *
 * <p>Not thread-safe: one reading thread.
 */
final class SpilledRun {

    /** The compression block of the channels, as Paimon's merge spill uses. */
    static final int BLOCK = 64 << 10;

    private final IOManager ioManager;
    private final BlockCompressionFactory codec;
    private final KeyValueWithLevelNoReusingSerializer serializer;
    private final ChannelWithMeta channel;
    private boolean opened;

    private SpilledRun(IOManager ioManager, BlockCompressionFactory codec, KeyValueWithLevelNoReusingSerializer serializer,
            ChannelWithMeta channel) {
        this.ioManager = ioManager;
        this.codec = codec;
        this.serializer = serializer;
        this.channel = channel;
    }

    /** Where records of a new run go: {@link #add} each, then {@link #finish}. */
    static final class Writer {
        private final IOManager ioManager;
        private final BlockCompressionFactory codec;
        private final KeyValueWithLevelNoReusingSerializer serializer;
        private final FileIOChannel.ID id;
        private final ChannelWriterOutputView out;
        private boolean done;

        Writer(IOManager ioManager, CompressOptions compression, RowType keyType, RowType valueType) throws IOException {
            this.ioManager = ioManager;
            this.codec = BlockCompressionFactory.create(compression);
            this.serializer = new KeyValueWithLevelNoReusingSerializer(keyType, valueType);
            this.id = ioManager.createChannel();
            this.out = FileChannelUtil.createOutputView(ioManager, id, codec, BLOCK);
        }

        void add(KeyValue record) throws IOException {
            serializer.serialize(record, out);
        }

        /** Closes the channel; the run it wrote. */
        SpilledRun finish() throws IOException {
            done = true;
            out.close();
            return new SpilledRun(ioManager, codec, serializer, new ChannelWithMeta(id, out.getBlockCount(), out.getWriteBytes()));
        }

        /** Bytes written to disk so far (compressed). */
        long bytes() {
            return out.getWriteBytes();
        }

        /** Gives up the run: closes and deletes its file. Does nothing after {@link #finish}. */
        void abandon() {
            if (!done) {
                done = true;
                try {
                    out.closeAndDelete();
                } catch (IOException | RuntimeException e) {
                    // The scope's directory goes when the context closes.
                }
            }
        }
    }

    /** A reader of the run, once: its file is deleted when it closes. */
    RecordReader<KeyValue> open() throws IOException {
        if (opened) {
            throw new IllegalStateException("a spilled run is read once");
        }
        opened = true;
        ChannelReaderInputView view = FileChannelUtil.createInputView(ioManager, channel, new ArrayList<>(), codec, BLOCK);
        ChannelReaderInputViewIterator rows = new ChannelReaderInputViewIterator(view, null, new BinaryRowSerializer(serializer.numFields()));
        return new RecordReader<>() {
            private boolean read;

            @Override
            public RecordIterator<KeyValue> readBatch() {
                if (read) {
                    return null;
                }
                read = true;
                return new RecordIterator<>() {
                    @Override
                    public KeyValue next() throws IOException {
                        BinaryRow row = rows.next();
                        return row == null ? null : serializer.fromRow(row);
                    }

                    @Override
                    public void releaseBatch() {}
                };
            }

            @Override
            public void close() throws IOException {
                view.getChannel().closeAndDelete();
            }
        };
    }

    /** Deletes the run's file when it was never opened (a merge given up). */
    void delete() {
        if (!opened) {
            opened = true;
            if (!channel.getChannel().getPathFile().delete() && channel.getChannel().getPathFile().exists()) {
                // Left to the scope: its directory goes when the context closes.
                return;
            }
        }
    }
}
