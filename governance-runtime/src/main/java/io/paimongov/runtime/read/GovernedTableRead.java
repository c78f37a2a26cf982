package io.paimongov.runtime.read;

import io.paimongov.runtime.internal.cancel.WriteCancelledIOException;
import io.paimongov.runtime.internal.formats.ParquetZstd;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.runtime.write.WriteFootprint;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.WriteCancelledException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.KeyValueFileReaderFactory;
import org.apache.paimon.operation.MergeFileSplitRead;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.KeyValueTableRead;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.IOUtils;

/**
 * A read of a Paimon table governed by the resource context of a write: its readers, merges and
 * the rows it hands out take their memory from the context's budget, its merges spill to the
 * context's spill scope, it stops at the context's cancel, and it keeps metrics of its own
 * ({@link #metrics()}). docs/reads.md describes it.
 *
 * <ul>
 *   <li>Batch reads of every table mode: splits that need no merge (append tables, deletion
 *       vectors, compacted primary-key splits) are read by Paimon's own read, one data file at a
 *       time, each split charged its most costly file's reader; splits of overlapping sorted runs
 *       are merged by Paimon's merge-on-read with a merge of the runtime's in place of Paimon's
 *       ({@link GovernedMergeSorter}): all runs at once when the budget holds their readers, else
 *       in passes through spilled runs, with the same rows.
 *   <li>Streaming reads: the splits of the table's stream scan ({@code
 *       table.newReadBuilder().newStreamScan()}) go to {@link #reader} like any split; Paimon reads
 *       them without merging, one file at a time.
 *   <li>Prefetch: Paimon's asynchronous file reader (its own thread and queue of batches) is
 *       turned off ({@code file-reader-async-threshold}), since its queue would be outside the
 *       budget.
 * </ul>
 *
 * <p>Paimon 1.4's {@code MergeFileSplitRead} keeps its merge in a final field, set here by
 * reflection; a Paimon without it fails at {@link #open} with {@link UnsupportedOperationException}.
 *
 * <p>Lifetime: {@link #open} on an open context; {@link #reader} per split, each closed by the
 * engine; {@link #close()} before the context closes. <b>Thread-safety:</b> {@link #reader},
 * {@link #plan}, {@link #metrics} and {@link #close} are thread-safe; each split reader is read by
 * one thread at a time.
 */
public final class GovernedTableRead implements AutoCloseable {

    /** A plan's charge per file entry, besides {@link #PLAN_FIELD_BYTES} per column. */
    static final int PLAN_ENTRY_BYTES = 1024;
    /** A plan's charge per file entry and column. */
    static final int PLAN_FIELD_BYTES = 256;
    /** Turns off Paimon's asynchronous file reader. */
    static final String NO_ASYNC_READER = Long.MAX_VALUE + " b";

    private static final PaimonField MERGE_SORTER = PaimonField.of(MergeFileSplitRead.class, "mergeSorter");
    private static final AtomicLong READS = new AtomicLong();

    private final FileStoreTable table;
    private final ResourceContext context;
    private final String name;
    private final ReadMetrics metrics = new ReadMetrics();
    private final ReadCosts costs;
    private final Set<GovernedSplitReader> open = ConcurrentHashMap.newKeySet();
    /** What the last plan holds, until the read plans again or closes (kind {@code read}). Guarded by itself. */
    private final ReaderMemory plans;
    private long planBytes;
    private RowType readType;
    private Predicate filter;
    private volatile boolean closed;

    private GovernedTableRead(FileStoreTable table, ResourceContext context) {
        this.table = table.copy(Map.of(CoreOptions.FILE_READER_ASYNC_THRESHOLD.key(), NO_ASYNC_READER));
        // Parquet's zstd streams keep each page's column chunk on the heap until a finalizer runs (as for the write).
        ParquetZstd.install(this.table.options());
        this.context = context;
        this.name = "read " + READS.incrementAndGet() + " of " + table.name();
        this.costs = ReadCosts.of(this.table);
        this.plans = new ReaderMemory(context.newReservation(ConsumerKind.READ, name + " plan"), metrics);
    }

    /**
     * Opens a governed read of {@code table} on {@code context}'s budget, spill scope and cancel.
     *
     * @throws UnsupportedOperationException when the Paimon on the class path has no merge to put
     *     the runtime's in place of
     * @throws GovernanceClosedException when the context is closed
     */
    public static GovernedTableRead open(FileStoreTable table, ResourceContext context) {
        MERGE_SORTER.require("governed reads");
        if (context.isClosed()) {
            throw new GovernanceClosedException("the resource context '" + context.name() + "' is closed");
        }
        return new GovernedTableRead(table, context);
    }

    /** Reads only these fields, as {@link ReadBuilder#withReadType}; before the first {@link #reader}. */
    public GovernedTableRead withReadType(RowType type) {
        this.readType = type;
        return this;
    }

    /** Reads only the fields at these indexes of the table's row type; before the first {@link #reader}. */
    public GovernedTableRead withProjection(int[] fields) {
        return withReadType(table.rowType().project(fields));
    }

    /** Passes {@code predicate} to Paimon's readers, as {@link ReadBuilder#withFilter}: rows it cannot skip still come back. */
    public GovernedTableRead withFilter(Predicate predicate) {
        this.filter = predicate;
        return this;
    }

    /** The row type of the rows this read hands out. */
    public RowType rowType() {
        return readType != null ? readType : table.rowType();
    }

    /**
     * The splits of a batch read of the table's latest snapshot (Paimon's scan, with this read's
     * filter). Before it plans, the read charges what the plan will hold, from the snapshot's
     * manifest list: {@link #planEntryBytes} per file entry of its data manifests, held until the
     * read plans again or closes.
     *
     * @throws ReadCancelledException when the context was cancelled before or while it planned
     * @throws io.paimongov.spi.ResourceExhaustedException when the budget cannot hold the plan,
     *     naming it
     */
    public List<Split> plan() throws ReadCancelledException {
        check();
        long entries = manifestEntries();
        long bytes = entries * planEntryBytes(table.rowType().getFieldCount());
        synchronized (plans) {
            // A new plan replaces the one before: an engine plans again when it is done with a plan's splits.
            if (bytes > planBytes) {
                plans.hold(bytes - planBytes);
            } else {
                plans.release(planBytes - bytes);
            }
            planBytes = bytes;
        }
        metrics.planBytes.add(bytes);
        List<Split> splits = builder(table).newScan().plan().splits();
        check();
        return splits;
    }

    /**
     * What one file entry of a plan is charged: a {@code DataFileMeta} and its statistics, kept by
     * the splits for as long as the engine holds them. Measured on a 3-column primary-key table: 1,216
     * bytes per file (live heap of a plan of 120 files, settled collections around it); charged
     * {@value #PLAN_ENTRY_BYTES} bytes plus {@value #PLAN_FIELD_BYTES} per column, since each column
     * adds its statistics.
     */
    static long planEntryBytes(int columns) {
        return PLAN_ENTRY_BYTES + (long) PLAN_FIELD_BYTES * columns;
    }

    /** The file entries of the latest snapshot's data manifests, from its manifest list; 0 without a snapshot. */
    private long manifestEntries() {
        Snapshot snapshot = table.snapshotManager().latestSnapshot();
        if (snapshot == null) {
            return 0;
        }
        long entries = 0;
        for (ManifestFileMeta manifest : table.store().manifestListFactory().create().readDataManifests(snapshot)) {
            entries += manifest.numAddedFiles() + manifest.numDeletedFiles();
        }
        return entries;
    }

    /**
     * A reader of {@code split}, charged to a reservation of its own from this moment until it
     * closes. The engine closes it.
     *
     * @throws ReadCancelledException when the context was cancelled
     * @throws IOException when Paimon cannot open the split
     * @throws IllegalStateException when this read was closed
     */
    public GovernedSplitReader reader(Split split) throws IOException {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        check();
        String consumer = name + " " + describe(split);
        ReaderMemory memory = new ReaderMemory(context.newReservation(ConsumerKind.READ, consumer), metrics);
        RecordReader<InternalRow> rows;
        try {
            boolean merge = merges(split);
            Batch batch = batchFor(split, merge);
            rows = merge ? mergeReader((DataSplit) split, memory, batch) : plainReader(split, memory, batch);
        } catch (WriteCancelledException | WriteCancelledIOException e) {
            // The context's spill files stop at a cancel with the write's exception; a read reports its own.
            memory.close();
            check();
            throw e;
        } catch (IOException | RuntimeException e) {
            memory.close();
            throw e;
        }
        metrics.splitsRead.increment();
        GovernedSplitReader[] made = new GovernedSplitReader[1];
        made[0] = new GovernedSplitReader(rows, memory, new InternalRowSerializer(rowType()),
                () -> context.newReservation(ConsumerKind.READ_OUTPUT, name + " output"), metrics, this::check,
                () -> open.remove(made[0]));
        open.add(made[0]);
        return made[0];
    }

    /** A snapshot of what this read did so far. */
    public ReadSnapshot metrics() {
        return metrics.snapshot();
    }

    /** Closes the split readers still open and gives the plans' charge back. Output batches stay charged until closed. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (GovernedSplitReader reader : new ArrayList<>(open)) {
            IOUtils.closeQuietly(reader);
        }
        synchronized (plans) {
            plans.close();
            planBytes = 0;
        }
    }

    /** Whether Paimon would merge the split's runs: a batch split of a primary-key table that is not raw. */
    private boolean merges(Split split) {
        if (table.primaryKeys().isEmpty() || !(split instanceof DataSplit ds) || ds.isStreaming()
                || ds.bucket() == BucketMode.POSTPONE_BUCKET) {
            return false;
        }
        if (!ds.rawConvertible()) {
            return true;
        }
        for (DataFileMeta file : ds.dataFiles()) {
            if (file.deleteRowCount().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** The table and reader costs a split is read with: the table's {@code read.batch-size}, or a smaller one. */
    private record Batch(FileStoreTable table, ReadCosts costs) {}

    /**
     * The batch size a split is read with: the table's {@code read.batch-size} when the least the
     * split's read holds at it (its most costly file's reader, beside a spill channel for a merge)
     * fits in what the budget has free now; else a quarter of it, and so on down to one row, until it
     * fits. Decoded rows of a batch are most of a wide row's reader, so a budget too small for the
     * table's batches reads in smaller ones instead of failing.
     */
    private Batch batchFor(Split split, boolean merge) {
        if (!(split instanceof DataSplit ds) || ds.dataFiles().isEmpty()) {
            return new Batch(table, costs);
        }
        ReadCosts at = costs.fitting(c -> c.mostCostly(ds) + (merge ? c.channel() : 0), ReadCosts.freeBytes(context));
        if (at == costs) {
            return new Batch(table, costs);
        }
        metrics.smallerBatchSplits.increment();
        return new Batch(table.copy(Map.of(CoreOptions.READ_BATCH_SIZE.key(), Integer.toString(at.batchRows()))), at);
    }

    private RecordReader<InternalRow> mergeReader(DataSplit split, ReaderMemory memory, Batch batch) throws IOException {
        FileStoreTable table = batch.table();
        KeyValueFileStore store = (KeyValueFileStore) table.store();
        MergeFileSplitRead read = store.newRead();
        KeyValueFileReaderFactory.Builder types = store.newReaderFactoryBuilder();
        GovernedMergeSorter sorter = new GovernedMergeSorter(table.coreOptions(), spillCodec(), types.keyType(), types.readValueType(),
                split.partition(), split.bucket(), batch.costs(), memory, this::check, metrics);
        MERGE_SORTER.set(read, sorter);
        read.withIOManager(context.spillIOManager());
        if (readType != null) {
            read.withReadType(readType);
        }
        if (filter != null) {
            read.withFilter(filter);
        }
        return KeyValueTableRead.unwrap(read.createReader(split), table.schema().options());
    }

    /** Paimon's read, one file at a time: charged its most costly file's reader. */
    private RecordReader<InternalRow> plainReader(Split split, ReaderMemory memory, Batch batch) throws IOException {
        if (split instanceof DataSplit ds) {
            for (DataFileMeta file : ds.dataFiles()) {
                metrics.filesOpened.increment();
                metrics.bytesOpened.add(file.fileSize());
            }
            memory.hold(batch.costs().mostCostly(ds));
        }
        return builder(batch.table()).newRead().withIOManager(context.spillIOManager()).createReader(split);
    }

    /** The table's {@code spill-compression} when it sets one, else the write's run codec at the table's level. */
    private CompressOptions spillCodec() {
        CompressOptions table = this.table.coreOptions().spillCompressOptions();
        return this.table.options().containsKey(CoreOptions.SPILL_COMPRESSION.key())
                ? table
                : new CompressOptions(WriteFootprint.SPILL_RUN_CODEC, table.zstdLevel());
    }

    private ReadBuilder builder(FileStoreTable table) {
        ReadBuilder builder = table.newReadBuilder();
        if (readType != null) {
            builder.withReadType(readType);
        }
        if (filter != null) {
            builder.withFilter(filter);
        }
        return builder;
    }

    private void check() throws ReadCancelledException {
        if (context.isCancelled()) {
            metrics.cancelled.set(true);
            throw new ReadCancelledException(context.cancelReason().orElse("cancelled"));
        }
    }

    private static String describe(Split split) {
        return split instanceof DataSplit ds ? "(bucket " + ds.bucket() + ", " + ds.dataFiles().size() + " files)" : "(split)";
    }
}
