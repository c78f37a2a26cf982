package io.paimongov.runtime.write;

import java.io.IOException;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.sort.SortBuffer;
import org.apache.paimon.utils.MutableObjectIterator;

/**
 * A writer's sort buffer whose sorted read checks the write's cancellation every {@value #ROWS}
 * rows: the loop of a flush, which reads the buffer in key order and hands each row to the data
 * file writer. A format encodes rows in memory (a Parquet row group, an ORC stripe) before any byte
 * reaches the file stream, so the stream checks ({@link CheckedStreams}) alone see a cancel only
 * when that buffer is written; this check stops the flush within {@value #ROWS} rows. The check
 * throws {@link io.paimongov.runtime.internal.cancel.WriteCancelledIOException}: Paimon's flush then closes
 * its file writer, whose writes are refused by the stream checks, and the file is deleted.
 * Everything else is passed through.
 *
 * <p><b>Thread-safety:</b> as the buffer it wraps: one writing thread.
 */
final class CheckedSortBuffer implements SortBuffer {

    /** Rows between two checks of a sorted read. */
    static final int ROWS = 1024;

    private final SortBuffer buffer;
    private final CheckedStreams.Check check;

    CheckedSortBuffer(SortBuffer buffer, CheckedStreams.Check check) {
        this.buffer = buffer;
        this.check = check;
    }

    @Override
    public int size() {
        return buffer.size();
    }

    @Override
    public void clear() {
        buffer.clear();
    }

    @Override
    public long getOccupancy() {
        return buffer.getOccupancy();
    }

    @Override
    public boolean flushMemory() throws IOException {
        return buffer.flushMemory();
    }

    @Override
    public boolean write(InternalRow row) throws IOException {
        return buffer.write(row);
    }

    @Override
    public MutableObjectIterator<BinaryRow> sortedIterator() throws IOException {
        MutableObjectIterator<BinaryRow> rows = buffer.sortedIterator();
        return new MutableObjectIterator<>() {
            private int sinceCheck;

            @Override
            public BinaryRow next(BinaryRow reuse) throws IOException {
                counted();
                return rows.next(reuse);
            }

            @Override
            public BinaryRow next() throws IOException {
                counted();
                return rows.next();
            }

            private void counted() throws IOException {
                if (++sinceCheck >= ROWS) {
                    sinceCheck = 0;
                    check.run();
                }
            }
        };
    }
}
