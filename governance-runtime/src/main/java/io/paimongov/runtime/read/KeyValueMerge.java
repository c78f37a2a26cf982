package io.paimongov.runtime.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.paimon.KeyValue;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.mergetree.compact.MergeFunctionWrapper;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReader.RecordIterator;
import org.apache.paimon.utils.FieldsComparator;
import org.apache.paimon.utils.IOUtils;

/**
 * A k-way merge of sorted key-value inputs in the order of Paimon's {@code SortMergeReader}: by
 * key, then by the user-defined sequence fields, then by sequence number. Unlike Paimon's, an input
 * may hold a key more than once (a spilled run merges several runs and keeps every record), so the
 * merge function sees every record of a key, from every input, in that order.
 *
 * <p>Inputs are of two sorts. A <em>source</em> reads a data file and reuses its record objects,
 * holding each key once: it is moved on only after the merged record it fed was taken, as Paimon's
 * merge does, since a merge function may keep the record it was given. A <em>spilled</em> input
 * hands out new objects, so it is moved on at once.
 *
 * <p>Not thread-safe: one reading thread.
 */
final class KeyValueMerge {

    /** One input and its current record. */
    static final class Cursor {
        private final RecordReader<KeyValue> reader;
        private final boolean reusesRecords;
        private final int index;
        private RecordIterator<KeyValue> batch;
        private KeyValue current;

        Cursor(RecordReader<KeyValue> reader, boolean reusesRecords, int index) {
            this.reader = reader;
            this.reusesRecords = reusesRecords;
            this.index = index;
        }

        /** Moves to the next record; false at the end, where the reader's batch is released. */
        boolean advance() throws IOException {
            while (true) {
                if (batch == null) {
                    batch = reader.readBatch();
                    if (batch == null) {
                        current = null;
                        return false;
                    }
                }
                KeyValue next = batch.next();
                if (next != null) {
                    current = next;
                    return true;
                }
                batch.releaseBatch();
                batch = null;
            }
        }

        void close() {
            if (batch != null) {
                batch.releaseBatch();
                batch = null;
            }
            IOUtils.closeQuietly(reader);
        }
    }

    private final PriorityQueue<Cursor> heap;
    private final List<Cursor> all;
    private final Comparator<InternalRow> keys;

    /** Positions every input on its first record. Closes them all if one fails. */
    KeyValueMerge(List<Cursor> inputs, Comparator<InternalRow> keys, FieldsComparator sequenceFields) throws IOException {
        this.keys = keys;
        this.all = new ArrayList<>(inputs);
        Comparator<Cursor> order = (a, b) -> {
            int c = keys.compare(a.current.key(), b.current.key());
            if (c == 0 && sequenceFields != null) {
                c = sequenceFields.compare(a.current.value(), b.current.value());
            }
            if (c == 0) {
                c = Long.compare(a.current.sequenceNumber(), b.current.sequenceNumber());
            }
            return c != 0 ? c : Integer.compare(a.index, b.index);
        };
        this.heap = new PriorityQueue<>(Math.max(1, inputs.size()), order);
        try {
            for (Cursor c : inputs) {
                if (c.advance()) {
                    heap.add(c);
                }
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The next record in merge order, every record kept; null at the end. Valid until the next call. */
    KeyValue nextRecord() throws IOException {
        return pending == null ? take() : takeAfter();
    }

    private Cursor pending;

    private KeyValue take() throws IOException {
        Cursor top = heap.poll();
        if (top == null) {
            return null;
        }
        pending = top;
        return top.current;
    }

    private KeyValue takeAfter() throws IOException {
        Cursor last = pending;
        pending = null;
        if (last.advance()) {
            heap.add(last);
        }
        return take();
    }

    /** A reader of the merged records: each key's records, in order, through {@code merge}. */
    <T> RecordReader<T> merged(MergeFunctionWrapper<T> merge, Runnable onClose) {
        return new RecordReader<T>() {
            private final List<Cursor> held = new ArrayList<>();
            private boolean read;

            @Override
            public RecordIterator<T> readBatch() {
                if (read) {
                    return null;
                }
                read = true;
                return new RecordIterator<T>() {
                    @Override
                    public T next() throws IOException {
                        for (Cursor c : held) {
                            if (c.advance()) {
                                heap.add(c);
                            }
                        }
                        held.clear();
                        while (!heap.isEmpty()) {
                            T result = mergeOneKey();
                            if (result != null) {
                                return result;
                            }
                        }
                        return null;
                    }

                    @Override
                    public void releaseBatch() {}
                };
            }

            /** Feeds every record of the smallest key to {@code merge}; its result, or null when it drops the key. */
            private T mergeOneKey() throws IOException {
                merge.reset();
                Cursor first = heap.poll();
                InternalRow key = first.current.key();
                feed(first);
                while (!heap.isEmpty() && keys.compare(heap.peek().current.key(), key) == 0) {
                    feed(heap.poll());
                }
                return merge.getResult();
            }

            private void feed(Cursor c) throws IOException {
                merge.add(c.current);
                if (c.reusesRecords) {
                    held.add(c);
                } else if (c.advance()) {
                    heap.add(c);
                }
            }

            @Override
            public void close() {
                try {
                    KeyValueMerge.this.close();
                } finally {
                    onClose.run();
                }
            }
        };
    }

    /** Closes every input. Idempotent. */
    void close() {
        for (Cursor c : all) {
            c.close();
        }
        all.clear();
        heap.clear();
    }
}
