package io.paimongov.runtime.write;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Objects;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;

/**
 * The first stage of a write of a dynamic-bucket or cross-partition update table over several
 * writers ({@link WriteChannels#assigned()}): picks each row's bucket, as Paimon's own assigner
 * operators do, with its memory governed by one {@link ResourceContext}. The engine routes rows to
 * assigners by {@link WriteChannels.Router#channel}, the assigner hands each row with its bucket to
 * {@link Output}, and the engine routes those to the writers by {@link WriteChannels#writerChannel}.
 *
 * <ul>
 *   <li>Dynamic buckets: per (assigner, partition) the keys the assigner owns from the table's hash
 *       index, charged per key ({@code DynamicBuckets}); a stream's {@link #prepareCommit} drops the
 *       partitions no row touched since the last commit. An overwrite starts from empty indexes.
 *   <li>Cross-partition update: Paimon's global index per assigner, in RocksDB under the context's
 *       spill scope, bootstrapped from the table on its first row, charged to the budget ({@code
 *       CrossPartitionIndex}); a key that moved partitions yields the retraction of its old row
 *       (or the row sent to its old partition, or nothing, as the merge engine says) before it.
 * </ul>
 *
 * <p>Lifetime: {@link #open} takes the context over; {@link #close()} closes the indexes and the
 * context (spill scope deleted, memory back). A failed {@link #assign} leaves the assigner to be
 * closed.
 *
 * <p><b>Thread-safety:</b> one thread calls {@link #assign}, {@link #prepareCommit} and {@link
 * #close}; {@link #cancel} may be called from any thread, and the next {@link #assign} throws
 * {@link WriteCancelledException}.
 */
public final class GovernedAssigner implements AutoCloseable {

    /** Where an assigned row goes. May throw; the assignment then fails with it. */
    @FunctionalInterface
    public interface Output {
        void accept(InternalRow row, int bucket) throws Exception;
    }

    private final ResourceContext context;
    private final RowKeyExtractor keys;
    private final DynamicBuckets dynamic;
    private final CrossPartitionIndex crossPartition;
    private boolean closed;

    private GovernedAssigner(ResourceContext context, RowKeyExtractor keys, DynamicBuckets dynamic, CrossPartitionIndex crossPartition) {
        this.context = context;
        this.keys = keys;
        this.dynamic = dynamic;
        this.crossPartition = crossPartition;
    }

    /**
     * An assigner of {@code table}'s rows whose channels are {@code channels}, on {@code context},
     * which it takes over (and closes when this fails).
     *
     * @throws IllegalArgumentException when the table needs no assigner (its rows' buckets come from
     *     its bucket function)
     * @throws UnsupportedTableModeException for an overwrite of a cross-partition update table
     */
    public static GovernedAssigner open(FileStoreTable table, ResourceContext context, WriteChannels channels, boolean overwrite) {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(channels, "channels");
        try {
            if (!channels.assigned()) {
                throw new IllegalArgumentException("table " + table.fullName() + " (bucket mode " + channels.bucketMode()
                        + ") takes its buckets from its bucket function; it needs no assigner");
            }
            TableMode mode = TableMode.of(table);
            if (mode.kind() == TableMode.Kind.PRIMARY_KEY_CROSS_PARTITION) {
                if (overwrite) {
                    throw new UnsupportedTableModeException(table.fullName(), "an overwrite of a cross-partition update table",
                            "a key of the overwritten partitions may live in a partition the overwrite keeps; delete the"
                                    + " partitions and insert instead");
                }
                WriteFootprint footprint = WriteFootprint.plan(table, context.budget().capacityBytes(), context.pool().pageSize());
                return new GovernedAssigner(context, table.createRowKeyExtractor(), null,
                        new CrossPartitionIndex(table, context, footprint, channels));
            }
            long bytesPerKey = MeasuredFootprints.get()
                    .bytes("pk", DynamicBuckets.FORMAT, DynamicBuckets.STAGE, context.pool().pageSize());
            return new GovernedAssigner(context, table.createRowKeyExtractor(),
                    new DynamicBuckets(table, context.budget(), bytesPerKey, channels, overwrite), null);
        } catch (RuntimeException | Error e) {
            try {
                context.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Assigns {@code row} and hands it, with its bucket, to {@code out} (a cross-partition key that
     * moved partitions may hand two rows, or none).
     *
     * @throws WriteCancelledException when the assigner was cancelled or its thread interrupted
     * @throws ResourceExhaustedException when the index cannot be charged for the row even after
     *     making room
     * @throws GovernanceClosedException after close
     */
    public void assign(InternalRow row, Output out) throws Exception {
        if (closed) {
            throw new GovernanceClosedException("cannot assign: the assigner is closed");
        }
        if (Thread.currentThread().isInterrupted()) {
            context.cancel(GovernedTableWrite.INTERRUPTED);
        }
        context.token().throwIfCancelled();
        if (crossPartition != null) {
            crossPartition.assign(row, out::accept);
        } else {
            keys.setRecord(row);
            BinaryRow partition = keys.partition();
            out.accept(row, dynamic.bucket(row, partition));
        }
        context.recorder().recordInput(1, 0);
    }

    /**
     * At a stream's commit {@code identifier} (before the checkpoint barrier, as Paimon's assigner
     * operator): dynamic buckets drop the indexes of partitions untouched since the last commit once
     * that commit is in the table. Nothing for cross-partition update.
     */
    public void prepareCommit(long identifier, String commitUser) {
        if (dynamic != null) {
            dynamic.prepareCommit(identifier, commitUser);
        }
    }

    /** Cancels from any thread; the next {@link #assign} throws. */
    public boolean cancel(String reason) {
        return context.cancel(reason);
    }

    /** The context's metrics: its reservations (the indexes), input rows, spill. */
    public MetricsSnapshot metrics() {
        return context.snapshot();
    }

    /**
     * Closes the indexes (RocksDB and its files) and the context. Idempotent.
     *
     * @throws Exception what closing an index threw, after the context was closed anyway
     */
    @Override
    public void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (crossPartition != null) {
                crossPartition.close();
            }
            if (dynamic != null) {
                dynamic.close();
            }
        } finally {
            context.close();
        }
    }
}
