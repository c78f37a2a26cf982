package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.spill.TieredSortBuffer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.JoinedRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.memory.MemorySegmentPool;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.MutableObjectIterator;
import org.apache.paimon.utils.OffsetRow;

/**
 * One sort shared by every (partition, bucket) writer that did not get a writer of its own: rows
 * are kept in the write's pages, keyed by their writer and their arrival, spilled in sorted runs
 * when the pages run out, and at prepareCommit given back writer by writer, each writer's rows in
 * the order they arrived. So the write needs one open writer at a time for them, and its memory is
 * the budget whatever the number of writers. Runs are merged in size tiers with a bounded fan-in
 * ({@link TieredSortBuffer}), so spilling costs O(input x log_fanIn(runs)), never the quadratic
 * all-runs merge, and the final read opens at most fan-in runs; its memory is (the shape Spark takes past {@code
 * spark.sql.maxConcurrentOutputFileWriters}; docs/architecture.md, "Many writers").
 *
 * <p>A row is kept as (writer index, arrival number, the row's fields) with its row kind; the
 * writer index numbers writers in the order they first came here.
 *
 * <p><b>Thread-safety:</b> not thread-safe; used on the writing thread inside a write call.
 */
final class SharedSort implements AutoCloseable {

    /** Receives the sorted rows writer by writer. */
    interface Sink {
        void begin(WriterKey writer) throws Exception;

        void row(InternalRow row) throws Exception;

        void end(WriterKey writer) throws Exception;
    }

    private final TieredSortBuffer buffer;
    private final int arity;
    private final WriterTable<Integer> index = new WriterTable<>();
    private final List<WriterKey> writers = new ArrayList<>();
    private final GenericRow head = new GenericRow(2);
    private final JoinedRow joined = new JoinedRow();
    private long arrival;
    private long rows;

    /**
     * @param runCompression the codec of runs spilled from memory and of those merged for the
     *     sorted read ({@link WriteFootprint#spillRunCompression})
     * @param mergeCompression the codec of runs a full tier merges (the table's {@code
     *     spill-compression})
     * @param block the spill compression block ({@link WriteFootprint#spillBlockBytes()})
     * @param channels the reservation the sort's spill channels are charged to ({@code (fanIn + 1) x
     *     bytesPerChannel}, grown here)
     */
    SharedSort(RowType rowType, MemorySegmentPool pool, IOManager ioManager, int fanIn, CompressOptions runCompression,
            CompressOptions mergeCompression, int block, MemoryReservation channels, long bytesPerChannel) {
        this.arity = rowType.getFieldCount();
        List<DataField> fields = new ArrayList<>();
        fields.add(new DataField(0, "_writer", DataTypes.INT().notNull()));
        fields.add(new DataField(1, "_arrival", DataTypes.BIGINT().notNull()));
        for (DataField f : rowType.getFields()) {
            fields.add(f.newId(fields.size()));
        }
        this.buffer =
                new TieredSortBuffer(
                        new RowType(fields), new int[] {0, 1}, pool, ioManager, fanIn, runCompression, mergeCompression, block, channels,
                        bytesPerChannel);
    }

    /**
     * Keeps {@code row} for the writer of ({@code partition}, {@code bucket}); the partition may be a
     * buffer the caller reuses.
     *
     * @return whether it is the writer's first row here (the writer is new to the sort)
     */
    boolean add(BinaryRow partition, int bucket, InternalRow row) throws IOException {
        Integer id = index.get(partition, bucket);
        boolean first = id == null;
        if (first) {
            WriterKey kept = new WriterKey(partition.copy(), bucket);
            id = writers.size();
            index.put(kept, id);
            writers.add(kept);
        }
        head.setField(0, id);
        head.setField(1, arrival++);
        joined.replace(head, row);
        joined.setRowKind(row.getRowKind());
        if (!buffer.write(joined)) {
            throw new IOException("the shared sort could not take a row of " + writers.get(id));
        }
        rows++;
        return first;
    }

    boolean isEmpty() {
        return rows == 0;
    }

    /** Writers with rows waiting. */
    int writerCount() {
        return writers.size();
    }

    /** Rows waiting. */
    long rows() {
        return rows;
    }

    /** Writes what is in memory out as a sorted run, so the pages go back to the pool. */
    void spill() throws IOException {
        buffer.flushMemory();
    }

    /** Gives every waiting row to {@code sink}, writer by writer, then empties the sort. */
    void drain(Sink sink) throws Exception {
        MutableObjectIterator<BinaryRow> sorted = buffer.sortedIterator();
        OffsetRow fields = new OffsetRow(arity, 2);
        BinaryRow reuse = new BinaryRow(arity + 2);
        int current = -1;
        BinaryRow row;
        while ((row = sorted.next(reuse)) != null) {
            int id = row.getInt(0);
            if (id != current) {
                if (current >= 0) {
                    sink.end(writers.get(current));
                }
                current = id;
                sink.begin(writers.get(current));
            }
            sink.row(fields.replace(row));
        }
        if (current >= 0) {
            sink.end(writers.get(current));
        }
        clear();
    }

    private void clear() {
        buffer.clear();
        index.clear();
        writers.clear();
        rows = 0;
    }

    /** Empties the sort and gives its channel reservation back. */
    @Override
    public void close() {
        clear();
        buffer.close();
    }
}
