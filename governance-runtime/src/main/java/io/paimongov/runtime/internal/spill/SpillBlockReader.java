package io.paimongov.runtime.internal.spill;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.apache.paimon.disk.BufferFileReaderImpl;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.memory.Buffer;

/**
 * Paimon's buffer file reader for a {@link GovernedIOManager}, which forgets it once closed. It reads
 * the blocks the manager's writer (or Paimon's) wrote, a 4-byte size and the bytes each, in one
 * scattering system call per block: the block and the next block's size together. Paimon's
 * reader makes four (the file's size, its position, the size, the bytes); at 4 KiB blocks a
 * spilling write's reads were about four system calls for every 4 KiB it read back.
 *
 * <p><b>Thread-safety:</b> none; one reading thread, as Paimon's reader.
 */
final class SpillBlockReader extends BufferFileReaderImpl {
    private static final int BLOCK_HEADER = 4;

    private final Runnable checkCancelled;
    private final Consumer<FileIOChannel> onClose;
    private final ByteBuffer header = ByteBuffer.allocateDirect(BLOCK_HEADER);
    private final ByteBuffer[] blockAndSize = {null, header};
    /** Whether {@link #header} holds the size of the next block (false before the first read). */
    private boolean sizeRead;
    private boolean endOfFile;

    /**
     * @param checkCancelled run before every block read; throws when the write is cancelled
     * @param onClose told of this reader once it is closed
     */
    SpillBlockReader(FileIOChannel.ID channel, Runnable checkCancelled, Consumer<FileIOChannel> onClose) throws IOException {
        super(channel);
        this.checkCancelled = checkCancelled;
        this.onClose = onClose;
    }

    @Override
    public void readInto(Buffer buffer) throws IOException {
        checkCancelled.run();
        if (!sizeRead) {
            readFully(header);
            sizeRead = true;
        }
        if (header.hasRemaining()) {
            throw new EOFException("no block left in spill file " + id.getPath());
        }
        int size = header.getInt(0);
        if (size > buffer.getMaxCapacity()) {
            throw new IllegalStateException("a block of " + size + " bytes in spill file " + id.getPath()
                    + " does not fit a buffer of " + buffer.getMaxCapacity() + " bytes");
        }
        if (buffer.getSize() != 0) {
            throw new IllegalArgumentException("the buffer to read a spill block into is not empty");
        }
        ByteBuffer block = buffer.getNioBuffer(0, size);
        header.clear();
        blockAndSize[0] = block;
        try {
            while ((block.hasRemaining() || header.hasRemaining()) && fileChannel.read(blockAndSize) >= 0) {
                // Until the block and the next size are read, or the file ends.
            }
        } finally {
            blockAndSize[0] = null;
        }
        if (block.hasRemaining()) {
            throw new EOFException("spill file " + id.getPath() + " ends inside a block of " + size + " bytes");
        }
        if (header.position() != 0 && header.hasRemaining()) {
            throw new EOFException("spill file " + id.getPath() + " ends inside a block's size");
        }
        buffer.setSize(size);
        endOfFile = header.position() == 0;
    }

    @Override
    public boolean hasReachedEndOfFile() {
        return endOfFile;
    }

    private void readFully(ByteBuffer into) throws IOException {
        while (into.hasRemaining() && fileChannel.read(into) >= 0) {
            // A file read returns less than asked only at the file's end; then the loop ends.
        }
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            onClose.accept(this);
        }
    }
}
