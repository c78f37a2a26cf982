package io.paimongov.runtime.read;

import io.paimongov.runtime.write.EngineReservation;
import io.paimongov.runtime.internal.cancel.WriteCancelledIOException;
import io.paimongov.spi.WriteCancelledException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.reader.RecordReader;

/**
 * The rows of one split, read within the budget: its readers and merges are charged to the
 * reader's own reservation (consumer kind {@code read}, given back when it closes), and it looks for
 * a cancel before each batch, file and merge pass ({@link ReadCancelledException}).
 *
 * <p>Two ways to take rows: as a Paimon {@link RecordReader} ({@link #readBatch}), whose rows are
 * valid until the next batch as in any Paimon read; or as {@link OutputBatch}es ({@link
 * #nextBatch}), copies the engine may keep, charged until it closes them. Do not mix the two on one
 * reader.
 *
 * <p>Not thread-safe: one reading thread; {@link #close()} may come from the read's close on
 * another thread once the reading thread stopped. Closing twice does nothing.
 */
public final class GovernedSplitReader implements RecordReader<InternalRow> {

    /** Output bytes asked of the budget at a time while a batch fills. */
    static final long OUTPUT_CHUNK = 64 << 10;

    private final RecordReader<InternalRow> rows;
    private final ReaderMemory memory;
    private final InternalRowSerializer copier;
    private final Supplier<EngineReservation> outputReservations;
    private final ReadMetrics metrics;
    private final CancelCheck cancel;
    private final Runnable onClose;
    private RecordIterator<InternalRow> current;
    private InternalRow carried;
    private boolean ended;
    private boolean closed;

    GovernedSplitReader(RecordReader<InternalRow> rows, ReaderMemory memory, InternalRowSerializer copier,
            Supplier<EngineReservation> outputReservations, ReadMetrics metrics, CancelCheck cancel, Runnable onClose) {
        this.rows = rows;
        this.memory = memory;
        this.copier = copier;
        this.outputReservations = outputReservations;
        this.metrics = metrics;
        this.cancel = cancel;
        this.onClose = onClose;
    }

    @Override
    public RecordIterator<InternalRow> readBatch() throws IOException {
        cancel.check();
        RecordIterator<InternalRow> batch;
        try {
            batch = rows.readBatch();
        } catch (WriteCancelledException | WriteCancelledIOException e) {
            throw asReadCancel(e);
        }
        if (batch == null) {
            return null;
        }
        return new RecordIterator<>() {
            @Override
            public InternalRow next() throws IOException {
                InternalRow row;
                try {
                    row = batch.next();
                } catch (WriteCancelledException | WriteCancelledIOException e) {
                    throw asReadCancel(e);
                }
                if (row != null) {
                    metrics.rowsRead.increment();
                }
                return row;
            }

            @Override
            public void releaseBatch() {
                batch.releaseBatch();
            }
        };
    }

    /**
     * Copies up to {@code maxRows} next rows into a batch charged until the engine closes it. A batch
     * ends early when the budget holds no more output now (it has at least one row); only a row the
     * budget cannot hold alone fails.
     *
     * @return the batch, or null at the end of the split
     * @throws io.paimongov.spi.ResourceExhaustedException naming the read's output when not even
     *     one row fits after the budget's other holders were asked to make room; the row is kept
     *     for the next call
     * @throws ReadCancelledException when the read was cancelled
     */
    public OutputBatch nextBatch(int maxRows) throws IOException {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1, was " + maxRows);
        }
        List<InternalRow> batch = new ArrayList<>();
        EngineReservation reservation = outputReservations.get();
        long used = 0;
        try {
            while (batch.size() < maxRows) {
                InternalRow row = carried != null ? carried : nextRow();
                if (row == null) {
                    break;
                }
                carried = row;
                BinaryRow copy = copier.toBinaryRow(row).copy();
                long bytes = copy.getSizeInBytes() + (long) OutputBatch.ROW_OVERHEAD;
                if (used + bytes > reservation.bytes()) {
                    long more = Math.max(OUTPUT_CHUNK, used + bytes - reservation.bytes());
                    if (!reservation.tryGrow(more)) {
                        if (!batch.isEmpty()) {
                            break;
                        }
                        reservation.grow(used + bytes - reservation.bytes());
                    }
                }
                carried = null;
                batch.add(copy);
                used += bytes;
            }
        } catch (IOException | RuntimeException e) {
            reservation.close();
            throw e;
        }
        if (batch.isEmpty()) {
            reservation.close();
            return null;
        }
        reservation.shrink(reservation.bytes() - used);
        metrics.output(used);
        metrics.outputBatches.increment();
        metrics.rowsRead.add(batch.size());
        return new OutputBatch(batch, used, reservation, metrics);
    }

    private InternalRow nextRow() throws IOException {
        try {
            return nextRowOrEnd();
        } catch (WriteCancelledException | WriteCancelledIOException e) {
            throw asReadCancel(e);
        }
    }

    /**
     * The runtime's spill files stop at a cancel with the write's exception (they are the
     * context's, shared with its write); a read reports it as its own.
     */
    private IOException asReadCancel(Exception e) throws ReadCancelledException {
        cancel.check();
        ReadCancelledException cancelled = new ReadCancelledException(e.getMessage());
        cancelled.initCause(e);
        return cancelled;
    }

    private InternalRow nextRowOrEnd() throws IOException {
        while (!ended) {
            if (current == null) {
                cancel.check();
                current = rows.readBatch();
                if (current == null) {
                    ended = true;
                    return null;
                }
            }
            InternalRow row = current.next();
            if (row != null) {
                return row;
            }
            current.releaseBatch();
            current = null;
        }
        return null;
    }

    /** Closes the readers, gives their reservation back and deletes spilled runs. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (current != null) {
                current.releaseBatch();
                current = null;
            }
            rows.close();
        } finally {
            try {
                memory.close();
            } finally {
                onClose.run();
            }
        }
    }
}
