package io.paimongov.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Sorted rows one at a time, for {@link PlainExternalSort}: after {@link #advance()} returned true,
 * the current row is {@code length} bytes at {@code offset} in {@code bytes}, with its key and
 * sequence number; it stays there until the next {@code advance()}. Not thread-safe.
 */
abstract class PlainRowStream {

    /** The byte order of Paimon's binary rows' fixed-length part, and of the records' lengths. */
    static final ByteOrder ROW_ORDER = ByteOrder.nativeOrder();
    /** A block's header in a run file: its raw and its compressed length. */
    static final int BLOCK_HEADER = 8;
    private static final Comparator<PlainRowStream> BY_KEY =
            Comparator.<PlainRowStream>comparingInt(s -> s.key).thenComparingLong(s -> s.sequence);

    byte[] bytes;
    int offset;
    int length;
    int key;
    long sequence;

    /** Moves to the next row; false when there is none. */
    abstract boolean advance() throws IOException;

    /** Gives back what the stream holds (a file stream deletes its file). */
    void close() throws IOException {}

    /** Reads the key and sequence number of the current row from {@code view}, a view of {@link #bytes}. */
    final void keyOf(ByteBuffer view, int header) {
        key = view.getInt(offset + header);
        sequence = view.getLong(offset + header + 8);
    }

    /** A piece's records. */
    static final class Memory extends PlainRowStream {
        private final ByteBuffer view;
        private final int header;
        private int next;
        private int left;

        Memory(PlainExternalSort.Piece piece, int header) {
            this.bytes = piece.records();
            this.view = ByteBuffer.wrap(bytes).order(ROW_ORDER);
            this.header = header;
            this.left = piece.count();
        }

        @Override
        boolean advance() {
            if (left == 0) {
                return false;
            }
            left--;
            length = view.getInt(next);
            offset = next + 4;
            next = offset + length;
            keyOf(view, header);
            return true;
        }
    }

    /** A run's file, read block by block; deleted by {@link #close()}. */
    static final class OnDisk extends PlainRowStream {
        private final FileChannel in;
        private final Path file;
        private final PlainBlockCodec codec;
        private final int header;
        private final ByteBuffer head = ByteBuffer.allocateDirect(BLOCK_HEADER);
        private byte[] compressed = new byte[0];
        private ByteBuffer view;
        private int next;
        private int fill;

        OnDisk(Path file, PlainBlockCodec codec, int header) throws IOException {
            this.in = FileChannel.open(file, StandardOpenOption.READ);
            this.file = file;
            this.codec = codec;
            this.header = header;
            this.bytes = new byte[0];
        }

        @Override
        boolean advance() throws IOException {
            if (next == fill && !readBlock()) {
                return false;
            }
            length = view.getInt(next);
            offset = next + 4;
            next = offset + length;
            keyOf(view, header);
            return true;
        }

        private boolean readBlock() throws IOException {
            head.clear();
            readFully(head);
            if (head.position() == 0) {
                return false;
            }
            if (head.hasRemaining()) {
                throw new IOException("run " + file + " ends inside a block header");
            }
            int raw = head.getInt(0);
            int size = head.getInt(4);
            if (compressed.length < size) {
                compressed = new byte[size];
            }
            ByteBuffer body = ByteBuffer.wrap(compressed, 0, size);
            readFully(body);
            if (body.hasRemaining()) {
                throw new IOException("run " + file + " ends inside a block");
            }
            if (bytes.length < raw) {
                bytes = new byte[raw];
                view = ByteBuffer.wrap(bytes).order(ROW_ORDER);
            }
            codec.decompress(compressed, size, bytes, raw);
            next = 0;
            fill = raw;
            return true;
        }

        private void readFully(ByteBuffer into) throws IOException {
            while (into.hasRemaining() && in.read(into) >= 0) {
                // A file read returns less than asked only at the file's end; then the loop ends.
            }
        }

        @Override
        void close() throws IOException {
            in.close();
            Files.delete(file);
        }
    }

    /** The streams merged in key order; the current row is the smallest head's. */
    static final class Merged extends PlainRowStream {
        private final PriorityQueue<PlainRowStream> heads = new PriorityQueue<>(BY_KEY);
        private final List<PlainRowStream> streams;
        private boolean started;

        Merged(List<PlainRowStream> streams) {
            this.streams = streams;
        }

        @Override
        boolean advance() throws IOException {
            if (!started) {
                started = true;
                for (PlainRowStream s : streams) {
                    if (s.advance()) {
                        heads.add(s);
                    }
                }
            } else {
                PlainRowStream previous = heads.poll();
                if (previous != null && previous.advance()) {
                    heads.add(previous);
                }
            }
            PlainRowStream head = heads.peek();
            if (head == null) {
                return false;
            }
            bytes = head.bytes;
            offset = head.offset;
            length = head.length;
            key = head.key;
            sequence = head.sequence;
            return true;
        }
    }
}
