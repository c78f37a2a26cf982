package io.paimongov.runtime.read;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.KeyValue;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.mergetree.MergeSorter;
import org.apache.paimon.mergetree.SortedRun;
import org.apache.paimon.mergetree.compact.MergeFunctionWrapper;
import org.apache.paimon.reader.ReaderSupplier;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.SizedReaderSupplier;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.FieldsComparator;

/**
 * The merge of one split's sections within the budget: Paimon's {@code MergeFileSplitRead} calls
 * {@link #mergeSort} for each section of overlapping sorted runs (one reader per run), and this
 * merge is put in place of Paimon's own ({@link GovernedTableRead} sets it on the split's read).
 *
 * <ol>
 *   <li>The section's readers are charged ({@link ReadCosts}). When the budget holds them all at
 *       once, Paimon's own merge runs ({@link #mergeSortNoSpill}), as in a read without governance.
 *   <li>Otherwise the section is merged in passes: the cheapest runs of data files that fit,
 *       beside one spill channel, are merged into a run on disk that keeps every record ({@link
 *       SpilledRun}), until what is left fits; a run on disk costs one spill channel, far less than
 *       a reader of a data file. Runs on disk are merged again only when no run of data files is
 *       left and their channels alone do not fit (each such pass rewrites what they hold). The last pass merges what is left through
 *       the table's merge function ({@link KeyValueMerge}), which sees every record of a key in
 *       Paimon's order, so the rows are the same as Paimon's.
 *   <li>When not even one pass fits (the cheapest run beside a channel, or two runs on disk beside
 *       one), the read fails with {@link io.paimongov.spi.ResourceExhaustedException} naming the
 *       reader, after the write sharing the budget was asked to make room.
 * </ol>
 *
 * <p>Each section's charge is held until its reader closes (Paimon closes a section's reader
 * before it opens the next). The run behind a reader supplier is read from the supplier Paimon
 * 1.4's {@code MergeTreeReaders} makes; a supplier without one is charged as a reader holding its
 * whole run.
 *
 * <p>Not thread-safe: one split reader, one thread.
 */
final class GovernedMergeSorter extends MergeSorter {

    /** Records merged between two looks for a cancel in a pass. */
    static final int CHECK_EVERY = 1024;

    private final RowType keyType;
    private final BinaryRow partition;
    private final int bucket;
    private final ReadCosts costs;
    private final ReaderMemory memory;
    private final CancelCheck cancel;
    private final ReadMetrics metrics;
    private final CompressOptions spillCodec;
    private IOManager ioManager;

    /**
     * @param spillCodec the codec of the spilled runs: the table's {@code spill-compression} when
     *     the table sets it, else {@link io.paimongov.runtime.write.WriteFootprint#SPILL_RUN_CODEC},
     *     as the write's runs (a run is written and read back once)
     */
    GovernedMergeSorter(CoreOptions options, CompressOptions spillCodec, RowType keyType, RowType valueType, BinaryRow partition,
            int bucket, ReadCosts costs, ReaderMemory memory, CancelCheck cancel, ReadMetrics metrics) {
        super(options, keyType, valueType, null);
        this.spillCodec = spillCodec;
        this.keyType = keyType;
        this.partition = partition;
        this.bucket = bucket;
        this.costs = costs;
        this.memory = memory;
        this.cancel = cancel;
        this.metrics = metrics;
    }

    /** One sorted run of the section and what its reader is charged. */
    private record Input(ReaderSupplier<KeyValue> supplier, long cost, SortedRun run) {}

    @Override
    public <T> RecordReader<T> mergeSort(List<SizedReaderSupplier<KeyValue>> lazyReaders, Comparator<InternalRow> keyComparator,
            FieldsComparator sequenceFields, MergeFunctionWrapper<T> mergeFunction) throws IOException {
        cancel.check();
        List<Input> inputs = new ArrayList<>();
        long sum = 0;
        for (SizedReaderSupplier<KeyValue> s : lazyReaders) {
            SortedRun run = runOf(s);
            long cost = run == null ? s.estimateSize() : runCost(run);
            inputs.add(new Input(s, cost, run));
            sum += cost;
        }
        long all = sum;
        metrics.section(inputs.size());
        if (memory.tryHold(all)) {
            List<ReaderSupplier<KeyValue>> suppliers = new ArrayList<>();
            for (Input in : inputs) {
                suppliers.add(() -> openSource(in));
            }
            RecordReader<T> merged;
            try {
                merged = mergeSortNoSpill(suppliers, keyComparator, sequenceFields, mergeFunction);
            } catch (IOException | RuntimeException e) {
                memory.release(all);
                throw e;
            }
            return new CheckedReader<>(merged, cancel, () -> memory.release(all));
        }
        metrics.sectionsInPasses.increment();
        return inPasses(inputs, keyComparator, sequenceFields, mergeFunction);
    }

    private <T> RecordReader<T> inPasses(List<Input> inputs, Comparator<InternalRow> keys, FieldsComparator sequenceFields,
            MergeFunctionWrapper<T> mergeFunction) throws IOException {
        inputs.sort(Comparator.comparingLong(Input::cost));
        Deque<Input> sources = new ArrayDeque<>(inputs);
        Deque<SpilledRun> spilled = new ArrayDeque<>();
        long channel = costs.channel();
        try {
            while (true) {
                cancel.check();
                long last = spilled.size() * channel;
                for (Input in : sources) {
                    last += in.cost();
                }
                if (memory.tryHold(last)) {
                    return lastPass(sources, spilled, last, keys, sequenceFields, mergeFunction);
                }
                if (!onePass(sources, spilled, keys, sequenceFields, 0)) {
                    // Nothing fits now: ask the budget's other holders to make room for the least
                    // pass, which throws, naming this reader, when they cannot; then that pass runs
                    // on what was made.
                    long least = Math.min(last, leastPass(sources, spilled));
                    memory.hold(least);
                    if (least == last) {
                        return lastPass(sources, spilled, last, keys, sequenceFields, mergeFunction);
                    }
                    if (!onePass(sources, spilled, keys, sequenceFields, least)) {
                        throw new IllegalStateException("a merge pass did not fit in the " + least + " bytes held for it");
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            spilled.forEach(SpilledRun::delete);
            throw e;
        }
    }

    /**
     * The least a pass that makes the section cheaper holds: one channel to write, and the cheapest
     * inputs (runs of data files first, then runs on disk) until they cost more than that channel.
     */
    private long leastPass(Deque<Input> sources, Deque<SpilledRun> spilled) {
        long channel = costs.channel();
        long group = 0;
        for (Input in : sources) {
            if (group > channel) {
                break;
            }
            group += in.cost();
        }
        for (int i = 0; i < spilled.size() && group <= channel; i++) {
            group += channel;
        }
        return channel + group;
    }

    /**
     * Merges the cheapest inputs that fit, beside one channel, into a new spilled run.
     *
     * @param credit bytes already held for this pass, used before more are asked for
     * @return false when no pass that makes the section cheaper fits now (the credit is given back)
     */
    private boolean onePass(Deque<Input> sources, Deque<SpilledRun> spilled, Comparator<InternalRow> keys,
            FieldsComparator sequenceFields, long credit) throws IOException {
        long channel = costs.channel();
        Credit held = new Credit(credit);
        if (!held.take(channel)) {
            memory.release(held.total);
            return false;
        }
        List<Input> fromSources = new ArrayList<>();
        List<SpilledRun> fromDisk = new ArrayList<>();
        while (!sources.isEmpty() && held.take(sources.peekFirst().cost())) {
            fromSources.add(sources.pollFirst());
        }
        // Runs on disk join only a pass that would not help without them: merging them again
        // rewrites what they hold, so while runs of data files are left, those are merged.
        while (held.used - channel <= channel && !spilled.isEmpty() && held.take(channel)) {
            fromDisk.add(spilled.pollFirst());
        }
        if (fromSources.isEmpty()) {
            while (!spilled.isEmpty() && held.take(channel)) {
                fromDisk.add(spilled.pollFirst());
            }
        }
        long group = held.used - channel;
        memory.release(held.total - held.used);
        long passHeld = held.used;
        // A pass helps when what it merges costs more than the one run it leaves.
        if (group <= channel) {
            for (int i = fromSources.size() - 1; i >= 0; i--) {
                sources.addFirst(fromSources.get(i));
            }
            for (int i = fromDisk.size() - 1; i >= 0; i--) {
                spilled.addFirst(fromDisk.get(i));
            }
            memory.release(passHeld);
            return false;
        }
        List<KeyValueMerge.Cursor> cursors = new ArrayList<>();
        SpilledRun.Writer writer = null;
        KeyValueMerge merge = null;
        try {
            for (Input in : fromSources) {
                cursors.add(new KeyValueMerge.Cursor(openSource(in), true, cursors.size()));
            }
            for (SpilledRun run : fromDisk) {
                cursors.add(new KeyValueMerge.Cursor(run.open(), false, cursors.size()));
            }
            writer = new SpilledRun.Writer(getIOManager(), spillCodec, keyType, valueType());
            merge = new KeyValueMerge(cursors, keys, sequenceFields);
            long n = 0;
            KeyValue record;
            while ((record = merge.nextRecord()) != null) {
                if (++n % CHECK_EVERY == 0) {
                    cancel.check();
                }
                writer.add(record);
            }
            spilled.addLast(writer.finish());
            metrics.mergePasses.increment();
            metrics.spilledRuns.increment();
            metrics.spillBytes.add(writer.bytes());
            return true;
        } catch (IOException | RuntimeException e) {
            if (writer != null) {
                writer.abandon();
            }
            if (merge == null) {
                cursors.forEach(KeyValueMerge.Cursor::close);
                fromDisk.forEach(SpilledRun::delete);
            }
            throw e;
        } finally {
            if (merge != null) {
                merge.close();
            }
            memory.release(passHeld);
        }
    }

    /** Bytes held for one pass: a credit held before it, then more asked for as inputs join. */
    private final class Credit {
        long total;
        long used;

        Credit(long held) {
            this.total = held;
        }

        boolean take(long bytes) {
            if (total - used >= bytes) {
                used += bytes;
                return true;
            }
            long more = bytes - (total - used);
            if (memory.tryHold(more)) {
                total += more;
                used += bytes;
                return true;
            }
            return false;
        }
    }

    private <T> RecordReader<T> lastPass(Deque<Input> sources, Deque<SpilledRun> spilled, long held, Comparator<InternalRow> keys,
            FieldsComparator sequenceFields, MergeFunctionWrapper<T> mergeFunction) throws IOException {
        List<KeyValueMerge.Cursor> cursors = new ArrayList<>();
        try {
            for (Input in : sources) {
                cursors.add(new KeyValueMerge.Cursor(openSource(in), true, cursors.size()));
            }
            while (!spilled.isEmpty()) {
                cursors.add(new KeyValueMerge.Cursor(spilled.pollFirst().open(), false, cursors.size()));
            }
            KeyValueMerge merge = new KeyValueMerge(cursors, keys, sequenceFields);
            return new CheckedReader<>(merge.merged(mergeFunction, () -> {}), cancel, () -> memory.release(held));
        } catch (IOException | RuntimeException e) {
            cursors.forEach(KeyValueMerge.Cursor::close);
            memory.release(held);
            throw e;
        }
    }

    /** Opens the reader of one run, counted and looking for a cancel before each batch. */
    private RecordReader<KeyValue> openSource(Input in) throws IOException {
        cancel.check();
        if (in.run() != null) {
            for (DataFileMeta file : in.run().files()) {
                metrics.filesOpened.increment();
                metrics.bytesOpened.add(file.fileSize());
            }
        }
        return new CheckedReader<>(in.supplier().get(), cancel, () -> {});
    }

    private long runCost(SortedRun run) {
        long most = 0;
        for (DataFileMeta file : run.files()) {
            most = Math.max(most, costs.file(partition, bucket, file));
        }
        return most;
    }

    /** Per class of reader supplier, its field holding the run; null when it has none. */
    private static final ClassValue<Field> RUN_FIELD = new ClassValue<>() {
        @Override
        protected Field computeValue(Class<?> type) {
            for (Field f : type.getDeclaredFields()) {
                if (f.getType() == SortedRun.class) {
                    try {
                        f.setAccessible(true);
                        return f;
                    } catch (RuntimeException e) {
                        return null;
                    }
                }
            }
            return null;
        }
    };

    /** The run Paimon 1.4's {@code MergeTreeReaders} gave the supplier, or null when it has none. */
    private static SortedRun runOf(Object supplier) {
        Field field = RUN_FIELD.get(supplier.getClass());
        try {
            return field == null ? null : (SortedRun) field.get(supplier);
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    @Override
    public void setIOManager(IOManager ioManager) {
        super.setIOManager(ioManager);
        this.ioManager = ioManager;
    }

    private IOManager getIOManager() {
        if (ioManager == null) {
            throw new IllegalStateException("a merge in passes needs the context's spill I/O manager");
        }
        return ioManager;
    }
}
