package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.cancel.CancellationToken;
import io.paimongov.runtime.config.Sizes;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.crosspartition.GlobalIndexAssigner;
import org.apache.paimon.crosspartition.IndexBootstrap;
import org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.lookup.rocksdb.RocksDBOptions;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.PartitionKeyExtractor;
import org.apache.paimon.table.sink.RowPartitionAllPrimaryKeyExtractor;

/**
 * The partition and bucket of each row of a cross-partition update table (a primary key without
 * every partition field, {@code bucket = -1}), found as Paimon's own connectors find them: Paimon's
 * {@link GlobalIndexAssigner} keeps, per assigner, every key it owns with the (partition, bucket)
 * the key lives in, in a local RocksDB, bootstrapped from the table; a key that moves to another
 * partition is retracted from the old one (or kept there, or the new row dropped, by the merge
 * engine), a new key goes to one of the assigner's buckets of its partition. A row's assigner is
 * {@code |hash(primary key) % assigners|} ({@link WriteChannels}); the assigners of the rows given
 * are opened each on its first row: the assigner reads every key of the table's latest snapshot
 * ({@link IndexBootstrap}, one reader at a time) and keeps those it routes, before it assigns
 * anything.
 *
 * <p>Memory. Everything an assigner holds is charged to the write's budget before it is opened, as
 * the reservation {@value #CONSUMER}, from the sizes this class sets on the assigner's copy of the
 * table (so they are bounds Paimon and RocksDB keep, charged as estimates): RocksDB's block cache
 * ({@code rocksdb.block.cache-size}) and write buffers ({@code rocksdb.writebuffer.size} times
 * {@code rocksdb.writebuffer.count}), both native memory; while it bootstraps, the key sorter's
 * heap pages (half of {@code write-buffer-size}, given back once the keys are loaded) and one open
 * reader of the table ({@link WriteFootprint#readerBytes()} plus a row group). The assigner's own
 * key cache on the heap ({@code lookup.cache-rows}) is turned off: lookups go to RocksDB's block
 * cache, which is charged. Not charged: the map of partitions the assigner has seen and its per
 * bucket row counts (a few dozen bytes per partition and bucket), and RocksDB's index blocks and
 * table readers beyond its caches. The RocksDB files live in the write's spill scope, deleted with
 * it; they are not counted against {@code governance.spill.max-bytes}.
 *
 * <p>RocksDB comes from the engine: Flink's {@code flink-statebackend-rocksdb} and Spark's own
 * {@code rocksdbjni} carry it; without it the first row fails with an error that says so.
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call; {@link #close} in the
 * write's release.
 */
final class CrossPartitionIndex {

    static final String CONSUMER = "cross-partition index";

    /** Where an assigned row goes: the write path's admission and Paimon's write. */
    @FunctionalInterface
    interface Output {
        void write(InternalRow row, int bucket) throws Exception;
    }

    private final FileStoreTable table;
    private final IOManager ioManager;
    private final MemoryBudget budget;
    private final CancellationToken token;
    private final int assigners;
    private final PartitionKeyExtractor<InternalRow> keys;
    private final long blockCacheBytes;
    private final long writeBufferBytes;
    private final long bootstrapBytes;
    private final Map<Integer, GlobalIndexAssigner> open = new HashMap<>();
    private final MemoryReservation reservation;
    private Output current;

    /**
     * The index of {@code table} (the table as the write writes it) for a write or an assigner on
     * {@code context}, whose rows are spread as {@code channels} says.
     */
    CrossPartitionIndex(FileStoreTable writtenTable, ResourceContext context, WriteFootprint footprint, WriteChannels channels) {
        long budgetBytes = context.budget().capacityBytes();
        int page = context.pool().pageSize();
        this.blockCacheBytes = clamp(budgetBytes / 32, 1L << 20, 64L << 20);
        long rocksWriteBuffer = clamp(budgetBytes / 64, 1L << 20, 16L << 20);
        this.writeBufferBytes = 2 * rocksWriteBuffer;
        long sorterBytes = Math.max(4L * page, clamp(budgetBytes / 16, 1L << 20, 64L << 20) / page * page);
        this.bootstrapBytes = sorterBytes + footprint.readerBytes() + footprint.formatBufferBytes();
        Map<String, String> options = new HashMap<>();
        options.put(RocksDBOptions.BLOCK_CACHE_SIZE.key(), Long.toString(blockCacheBytes));
        options.put(RocksDBOptions.WRITE_BUFFER_SIZE.key(), Long.toString(rocksWriteBuffer));
        options.put(RocksDBOptions.MAX_WRITE_BUFFER_NUMBER.key(), "2");
        options.put(RocksDBOptions.LOOKUP_CACHE_ROWS.key(), "0");
        // The key sorter takes half of write-buffer-size; its row buffer the other half, unused here
        // (rows are assigned only after the bootstrap) and allocated lazily.
        options.put(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(2 * sorterBytes));
        options.put(CoreOptions.CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM.key(), "1");
        this.table = writtenTable.copy(options);
        this.ioManager = context.ioManager();
        this.budget = context.budget();
        this.token = context.token();
        this.assigners = channels.assigners();
        this.keys = new RowPartitionAllPrimaryKeyExtractor(table.schema());
        this.reservation = budget.newReservation(ConsumerKind.INDEX, CONSUMER);
    }

    /**
     * Assigns {@code row} and hands what comes out to {@code out}: the row with its bucket, and, when
     * its key moved partitions, the retraction of the old row first (or the row sent to the key's
     * old partition, or nothing, as the merge engine says).
     *
     * @throws ResourceExhaustedException when the row's assigner is new and the budget cannot hold
     *     it even after making room
     * @throws io.paimongov.spi.WriteCancelledException when the write is cancelled while the
     *     assigner bootstraps
     */
    void assign(InternalRow row, Output out) throws Exception {
        int assigner = Math.abs(keys.trimmedPrimaryKey(row).hashCode() % assigners);
        GlobalIndexAssigner index = open.get(assigner);
        if (index == null) {
            index = bootstrap(assigner);
        }
        current = out;
        try {
            index.processInput(row);
        } catch (Assigned e) {
            throw e.failure;
        } finally {
            current = null;
        }
    }

    /** Assigners open now (exact). */
    int openAssigners() {
        return open.size();
    }

    /** Closes every assigner (RocksDB and its directory); the reservation goes with the budget's. */
    void close() throws Exception {
        Exception first = null;
        for (GlobalIndexAssigner index : open.values()) {
            try {
                index.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        open.clear();
        reservation.close();
        if (first != null) {
            throw first;
        }
    }

    private GlobalIndexAssigner bootstrap(int assigner) throws Exception {
        charge(blockCacheBytes + writeBufferBytes + bootstrapBytes, "assigner " + assigner);
        GlobalIndexAssigner index = new GlobalIndexAssigner(table);
        boolean opened = false;
        try {
            index.open(blockCacheBytes, ioManager, assigners, assigner, this::emit);
            open.put(assigner, index);
            opened = true;
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("a cross-partition update table (" + table.fullName() + ") needs RocksDB on the"
                    + " class path (org.rocksdb:rocksdbjni): Flink carries it in flink-statebackend-rocksdb, Spark in"
                    + " spark-core", e);
        } finally {
            if (!opened) {
                index.close();
                reservation.shrink(blockCacheBytes + writeBufferBytes + bootstrapBytes);
            }
        }
        // Every bucket is read and the keys this assigner routes are kept: an earlier write with
        // another assigner count put keys in buckets whatever their hash says now (Paimon's own
        // bootstrap reads every bucket too, and shuffles the keys to their assigners).
        KeyPartPartitionKeyExtractor keyOf = new KeyPartPartitionKeyExtractor(table.schema());
        long keysRead = 0;
        try (RecordReader<InternalRow> existing = new IndexBootstrap(table).bootstrap(1, 0)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = existing.readBatch()) != null) {
                InternalRow key;
                while ((key = batch.next()) != null) {
                    if (Math.abs(keyOf.trimmedPrimaryKey(key).hashCode() % assigners) == assigner) {
                        index.bootstrapKey(key);
                    }
                    if ((++keysRead & 1023) == 0) {
                        token.throwIfCancelled();
                    }
                }
                batch.releaseBatch();
            }
        }
        token.throwIfCancelled();
        index.endBoostrap(false);
        reservation.shrink(bootstrapBytes);
        return index;
    }

    private void charge(long bytes, String who) {
        if (reservation.tryGrow(bytes)) {
            return;
        }
        budget.reclaim(bytes);
        if (!reservation.tryGrow(bytes)) {
            throw budget.tooSmall(CONSUMER + " (" + who + ": RocksDB block cache " + Sizes.format(blockCacheBytes)
                    + ", write buffers " + Sizes.format(writeBufferBytes) + ", bootstrap " + Sizes.format(bootstrapBytes)
                    + ")", bytes);
        }
    }

    private void emit(InternalRow row, Integer bucket) {
        try {
            current.write(row, bucket);
        } catch (Exception e) {
            throw new Assigned(e);
        }
    }

    private static long clamp(long value, long min, long max) {
        return Math.max(min, Math.min(max, value));
    }

    /** Carries a checked failure of the output through Paimon's collector. */
    private static final class Assigned extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Exception failure;

        Assigned(Exception failure) {
            super(failure);
            this.failure = failure;
        }
    }
}
