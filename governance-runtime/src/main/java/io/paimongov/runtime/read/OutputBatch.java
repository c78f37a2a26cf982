package io.paimongov.runtime.read;

import io.paimongov.runtime.write.EngineReservation;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.data.InternalRow;

/**
 * Rows a governed read copied out for the engine to keep after the read moves on ({@link
 * GovernedSplitReader#nextBatch}): they stay charged to the budget (consumer kind {@code read
 * output}) until the engine lets go of them with {@link #close()}, which gives the bytes back
 * exactly once, from whichever thread calls it first. The charge is a measured estimate: each row's
 * bytes plus {@value #ROW_OVERHEAD} bytes for its objects. One not closed is given back when the
 * read's context closes.
 *
 * <p>The rows are Paimon {@code BinaryRow} copies the batch owns; they stay readable after close,
 * but are no longer charged. Thread-safe.
 */
public final class OutputBatch implements AutoCloseable {

    /** Heap a copied row takes besides its bytes: the row and segment objects, the array header and the list's slot. */
    public static final int ROW_OVERHEAD = 96;

    private final List<InternalRow> rows;
    private final long bytes;
    private final EngineReservation reservation;
    private final ReadMetrics metrics;
    private final AtomicBoolean released = new AtomicBoolean();

    OutputBatch(List<InternalRow> rows, long bytes, EngineReservation reservation, ReadMetrics metrics) {
        this.rows = List.copyOf(rows);
        this.bytes = bytes;
        this.reservation = reservation;
        this.metrics = metrics;
    }

    /** The rows, in read order; never empty. */
    public List<InternalRow> rows() {
        return rows;
    }

    /** The bytes charged for them until {@link #close()}. */
    public long bytes() {
        return bytes;
    }

    /** Whether {@link #close()} gave the bytes back. */
    public boolean isReleased() {
        return released.get();
    }

    /** Gives the bytes back: the first call does, later ones do nothing. Never throws for a provider that takes bytes back. */
    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            reservation.close();
            metrics.output(-bytes);
            metrics.outputBatchesReleased.increment();
        }
    }
}
