package io.paimongov.runtime.read;

import io.paimongov.runtime.internal.formats.ParquetZstd;
import io.paimongov.runtime.write.EngineReservation;
import io.paimongov.runtime.write.LookupPageCaches;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.RowCompactedSerializer;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.lookup.LookupStoreFactory;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.query.LocalTableQuery;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;

/**
 * Point lookups by primary key into a Paimon table, governed by the resource context of a write, as
 * a lookup join keeps them: Paimon's {@link LocalTableQuery} (local lookup files built from the
 * table's data files, their pages cached), with
 *
 * <ul>
 *   <li>its page cache charged to the budget page by page (kind {@code lookup}; {@link
 *       LookupPageCaches}): at most the table's {@code lookup.cache-max-memory-size}, and only what
 *       the budget gives; when it gives no more, the cache evicts its least recently used pages,
 *       and a page that does not fit at all is read for the one lookup without being kept;
 *   <li>its lookup files in the context's spill scope (gone when the context closes), at most the
 *       smaller of the table's {@code lookup.cache-max-disk-size} and {@code governance.spill.max-bytes},
 *       their blocks in lz4 unless the table sets {@code lookup.cache-spill-compression} (Paimon's
 *       zstd block streams keep each block on the heap until their finalizers run);
 *   <li>one reader of its files charged while it is open (kind {@code read}), for the lookup file a
 *       lookup builds from a data file: the largest reader among the files it has ({@link ReadCosts}),
 *       in batches smaller than the table's {@code read.batch-size} when the budget's free memory
 *       cannot hold it at that size (decided at the first refresh);
 *   <li>the context's cancel, looked for before each lookup and refresh ({@link ReadCancelledException}).
 * </ul>
 *
 * <p>Primary-key tables only. Paimon 1.4's {@code LocalTableQuery} keeps its lookup store factory
 * in a final field, set here by reflection; a Paimon without it fails at {@link #open}. Like
 * Paimon's, lookups do not apply deletion vectors.
 *
 * <p>Not thread-safe: one thread looks up and refreshes (as Paimon's lookup join does); {@link
 * #metrics()} may be called from any thread.
 */
public final class GovernedLookup implements AutoCloseable {

    private static final PaimonField STORE_FACTORY = PaimonField.of(LocalTableQuery.class, "lookupStoreFactory");

    private final FileStoreTable table;
    private final ResourceContext context;
    private final EngineReservation cache;
    private final ReaderMemory build;
    /** Paimon's query and the costs of its build reader: made again, with smaller batches, by the first refresh when the budget needs it. */
    private LocalTableQuery query;
    private ReadCosts costs;
    private int smallerBatchRows;
    private final Map<BinaryRow, Map<Integer, Set<DataFileMeta>>> files = new HashMap<>();
    private final Map<BinaryRow, Integer> totalBuckets = new HashMap<>();
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private long buildBytes;
    private volatile long lookups;
    private volatile long hits;
    private volatile long refreshes;
    private volatile long peakCacheBytes;
    private boolean closed;

    private GovernedLookup(FileStoreTable table, ResourceContext context) {
        this.table = table;
        this.context = context;
        this.cache = context.newReservation(ConsumerKind.LOOKUP, "lookup cache of " + table.name());
        this.build = new ReaderMemory(context.newReservation(ConsumerKind.READ, "lookup file build of " + table.name()), new ReadMetrics());
        this.costs = ReadCosts.of(table);
        // Parquet's zstd streams keep each page's column chunk on the heap until a finalizer runs (as for the write).
        ParquetZstd.install(table.options());
        this.query = newQuery(table);
    }

    /** Paimon's query of {@code table} with the charged page cache in place of its own, its files in the spill scope. */
    private LocalTableQuery newQuery(FileStoreTable table) {
        CoreOptions options = table.coreOptions();
        LocalTableQuery query = new LocalTableQuery(table);
        RowType keyType = ((KeyValueFileStore) table.store()).newReaderFactoryBuilder().keyType();
        STORE_FACTORY.set(query, LookupStoreFactory.create(options,
                LookupPageCaches.charged(options.lookupCacheMaxMemory(), options.lookupCacheHighPrioPoolRatio(), cache),
                new RowCompactedSerializer(keyType).createSliceComparator()));
        query.withIOManager(context.spillIOManager());
        return query;
    }

    /**
     * Opens lookups of primary-key table {@code table} on {@code context}; {@link #refresh()} takes
     * the latest snapshot's files.
     *
     * @throws IllegalArgumentException when the table has no primary key, naming it
     * @throws UnsupportedOperationException when the Paimon on the class path keeps its lookup store elsewhere
     */
    public static GovernedLookup open(FileStoreTable table, ResourceContext context) {
        if (table.primaryKeys().isEmpty()) {
            throw new IllegalArgumentException("table " + table.fullName() + " has no primary key: lookups need one");
        }
        STORE_FACTORY.require("governed lookups");
        long diskMax = Math.min(table.coreOptions().toConfiguration().get(CoreOptions.LOOKUP_CACHE_MAX_DISK_SIZE).getBytes(),
                context.options().spillMaxBytes());
        Map<String, String> options = new HashMap<>();
        options.put(CoreOptions.LOOKUP_CACHE_MAX_DISK_SIZE.key(), diskMax + " b");
        if (!table.options().containsKey(CoreOptions.LOOKUP_CACHE_SPILL_COMPRESSION.key())) {
            // As the governed write's lookups: Paimon's zstd block codec reads each lookup block through
            // zstd-jni's finalizing stream, which keeps the block's bytes on the heap until the finalizer runs.
            options.put(CoreOptions.LOOKUP_CACHE_SPILL_COMPRESSION.key(), "lz4");
        }
        FileStoreTable bounded = table.copy(options);
        return new GovernedLookup(bounded, context);
    }

    /**
     * Takes the files of the table's latest snapshot: new buckets get lookup levels, known ones
     * drop the files that left and add those that came.
     *
     * @throws ReadCancelledException when the context was cancelled
     * @throws io.paimongov.spi.ResourceExhaustedException when the budget cannot hold one reader
     *     of the files, naming the lookup
     */
    public void refresh() throws IOException {
        check();
        List<Split> splits = table.newReadBuilder().newScan().plan().splits();
        if (refreshes == 0) {
            fitBatches(splits);
        }
        long most = 0;
        for (Split split : splits) {
            if (!(split instanceof DataSplit ds)) {
                continue;
            }
            Set<DataFileMeta> now = new HashSet<>(ds.dataFiles());
            Set<DataFileMeta> before = files.computeIfAbsent(ds.partition(), p -> new HashMap<>()).get(ds.bucket());
            List<DataFileMeta> gone = new ArrayList<>();
            List<DataFileMeta> came = new ArrayList<>();
            if (before != null) {
                before.stream().filter(f -> !now.contains(f)).forEach(gone::add);
            }
            now.stream().filter(f -> before == null || !before.contains(f)).forEach(came::add);
            if (before == null || !gone.isEmpty() || !came.isEmpty()) {
                query.refreshFiles(ds.partition(), ds.bucket(), gone, came);
            }
            files.get(ds.partition()).put(ds.bucket(), now);
            totalBuckets.put(ds.partition(), ds.totalBuckets() != null ? ds.totalBuckets() : table.coreOptions().bucket());
            most = Math.max(most, costs.mostCostly(ds));
        }
        if (most > buildBytes) {
            build.hold(most - buildBytes);
        } else {
            build.release(buildBytes - most);
        }
        buildBytes = most;
        refreshes++;
        check();
    }

    /**
     * Before the first lookup file is built: when the build reader of the most costly file does not
     * fit in what the budget has free at the table's {@code read.batch-size}, the query is made again
     * with a quarter of it, and so on down to one row, until it fits (as {@link GovernedTableRead}
     * reads a split).
     */
    private void fitBatches(List<Split> splits) throws IOException {
        ReadCosts at = costs.fitting(c -> mostCostly(splits, c), ReadCosts.freeBytes(context));
        if (at != costs) {
            query.close();
            query = newQuery(table.copy(Map.of(CoreOptions.READ_BATCH_SIZE.key(), Integer.toString(at.batchRows()))));
            costs = at;
            smallerBatchRows = at.batchRows();
        }
    }

    private static long mostCostly(List<Split> splits, ReadCosts costs) {
        long most = 0;
        for (Split split : splits) {
            if (split instanceof DataSplit ds) {
                most = Math.max(most, costs.mostCostly(ds));
            }
        }
        return most;
    }

    /**
     * The row of {@code key} (the table's trimmed primary key) in {@code bucket} of {@code
     * partition}, or null when there is none or it was deleted; valid until the next call.
     *
     * @throws ReadCancelledException when the context was cancelled
     */
    public InternalRow lookup(BinaryRow partition, int bucket, InternalRow key) throws IOException {
        check();
        lookups++;
        InternalRow row = query.lookup(partition, bucket, key);
        if (row != null) {
            hits++;
        }
        long held = cache.bytes();
        if (held > peakCacheBytes) {
            peakCacheBytes = held;
        }
        return row;
    }

    /**
     * The number of buckets of {@code partition} as the last {@link #refresh()} found it (a
     * partition's count may differ from the table's after a rescale), or null when it found no data
     * there.
     */
    public Integer buckets(BinaryRow partition) {
        return totalBuckets.get(partition);
    }

    /** A snapshot of what the lookups did so far. */
    public LookupSnapshot metrics() {
        int buckets = files.values().stream().mapToInt(Map::size).sum();
        return new LookupSnapshot(lookups, hits, refreshes, buckets, cache.isClosed() ? 0 : cache.bytes(), peakCacheBytes, buildBytes,
                cancelled.get(), 0, smallerBatchRows);
    }

    /** Closes Paimon's query (its lookup files and cached pages) and gives the reservations back. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            query.close();
        } finally {
            try {
                build.close();
            } finally {
                cache.close();
            }
        }
    }

    private void check() throws ReadCancelledException {
        if (context.isCancelled()) {
            cancelled.set(true);
            throw new ReadCancelledException(context.cancelReason().orElse("cancelled"));
        }
    }
}
