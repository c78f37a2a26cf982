package io.paimongov.runtime.read;

import io.paimongov.runtime.write.EngineReservation;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.ProjectedRow;

/**
 * Lookups of a Paimon table's rows by any of its fields (a lookup join by fields other than the
 * primary key, or of an append table), governed by a resource context: the rows of each key are
 * cached within the budget (kind {@code lookup}, a measured estimate per row, {@link #ROW_OVERHEAD}),
 * at most half of it, the other half left to the reads that fill the cache.
 *
 * <ul>
 *   <li>When the whole table (its latest snapshot, read through a {@link GovernedTableRead}) fits,
 *       every key is cached and a key not cached has no row.
 *   <li>When it does not, the cache holds the keys looked up most recently: a key not cached is
 *       read from the table (its files pruned by a filter on the key) and cached, the least recently
 *       used keys evicted to make room; a key whose rows do not fit at all is answered uncached.
 * </ul>
 *
 * <p>The reads share the budget with the cache: when one cannot get its reader's memory, the cache
 * gives its keys back and the read tries once more; a load that meets a full budget is taken as a
 * table that does not fit.
 *
 * <p>{@link #refresh()} takes a newer snapshot: a table that fit is read again, a cache of recent
 * keys is emptied. A key with a null field has no row (SQL equality). The context's cancel is looked
 * for before each lookup, refresh and read ({@link ReadCancelledException}).
 *
 * <p>Not thread-safe: one thread looks up and refreshes; {@link #metrics()} may be called from any thread.
 */
public final class GovernedFieldLookup implements AutoCloseable {

    /** Heap per cached row beyond its bytes: the row, its memory segment and array headers, the list slot. */
    static final long ROW_OVERHEAD = 120;
    /** Heap per cached key beyond its bytes: the map entry, the key row and its list. */
    static final long KEY_OVERHEAD = 200;

    private final FileStoreTable table;
    private final ResourceContext context;
    private final int[] keyFields;
    private final int[] readFields;
    private final ProjectedRow keyOfRead;
    private final ProjectedRow valueOfRead;
    private final InternalRowSerializer keySerializer;
    private final InternalRowSerializer valueSerializer;
    private final EngineReservation cache;
    private final LinkedHashMap<BinaryRow, Cached> rows = new LinkedHashMap<>(16, 0.75f, true);
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private Predicate restriction;
    private Long snapshot;
    private boolean complete;
    private boolean tableFit = true;
    private volatile long lookups;
    private volatile long hits;
    private volatile long refreshes;
    private volatile long keyScans;
    private volatile long peakCacheBytes;
    private boolean closed;

    private record Cached(List<BinaryRow> rows, long bytes) {}

    private GovernedFieldLookup(FileStoreTable table, ResourceContext context, int[] projection, int[] keyFields) {
        this.table = table;
        this.context = context;
        this.keyFields = keyFields.clone();
        this.readFields = IntStream.concat(Arrays.stream(projection), Arrays.stream(keyFields)).distinct().toArray();
        this.keyOfRead = ProjectedRow.from(positions(keyFields));
        this.valueOfRead = ProjectedRow.from(positions(projection));
        this.keySerializer = new InternalRowSerializer(table.rowType().project(keyFields));
        this.valueSerializer = new InternalRowSerializer(table.rowType().project(projection));
        this.cache = context.newReservation(ConsumerKind.LOOKUP, "lookup cache of " + table.name() + " by "
                + table.rowType().project(keyFields).getFieldNames());
    }

    /**
     * Opens lookups of {@code table} by the fields {@code keyFields} (indexes into its row type, in
     * the order of a lookup's key), answering rows of the fields {@code projection}; {@link
     * #refresh()} loads the table.
     *
     * @throws IllegalArgumentException when {@code keyFields} is empty or names no field of the table
     */
    public static GovernedFieldLookup open(FileStoreTable table, ResourceContext context, int[] projection, int[] keyFields) {
        int count = table.rowType().getFieldCount();
        if (keyFields.length == 0 || Arrays.stream(keyFields).anyMatch(f -> f < 0 || f >= count)
                || Arrays.stream(projection).anyMatch(f -> f < 0 || f >= count)) {
            throw new IllegalArgumentException("lookup fields " + Arrays.toString(keyFields) + " and projection "
                    + Arrays.toString(projection) + " must be fields of " + table.fullName() + " (0 to " + (count - 1) + "), keys at least one");
        }
        return new GovernedFieldLookup(table, context, projection, keyFields);
    }

    /** The positions of {@code fields} among the fields read. */
    private int[] positions(int[] fields) {
        int[] positions = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            int field = fields[i];
            positions[i] = IntStream.range(0, readFields.length).filter(j -> readFields[j] == field).findFirst().orElseThrow();
        }
        return positions;
    }

    /**
     * Takes the table's latest snapshot when it is newer than the one cached: reads the whole table
     * into the cache if it fit the last time, else empties the cache of recent keys. A load that
     * fails keeps nothing, and the next refresh loads again.
     *
     * @throws ReadCancelledException when the context was cancelled
     * @throws io.paimongov.spi.ResourceExhaustedException when the budget cannot hold the reader of one split
     */
    public void refresh() throws IOException {
        check();
        Long latest = table.snapshotManager().latestSnapshotId();
        refreshes++;
        if (snapshot != null && snapshot.equals(latest)) {
            return;
        }
        clear();
        snapshot = null;
        complete = false;
        if (tableFit) {
            try {
                tableFit = loadAll();
            } catch (ResourceExhaustedException e) {
                // What the cache took left too little for the next split's reader: the table does not fit.
                tableFit = false;
            } catch (IOException | RuntimeException e) {
                // A load cut short keeps no key: some of a key's rows may be in the files not read yet.
                clear();
                throw e;
            }
            complete = tableFit;
            if (!tableFit) {
                clear();
            }
        }
        snapshot = latest;
    }

    /**
     * Looks up only the rows {@code filter} keeps (null: every row), as a lookup join restricted to
     * some partitions does: the cache is emptied and the next {@link #refresh()} loads again.
     */
    public void restrict(Predicate filter) {
        restriction = filter;
        clear();
        snapshot = null;
        complete = false;
        tableFit = true;
    }

    /** Reads every row into the cache; false (at the first row that does not fit) when the table does not fit. */
    private boolean loadAll() throws IOException {
        try (GovernedTableRead read = open(null)) {
            for (Split split : read.plan()) {
                try (RecordReader<InternalRow> reader = read.reader(split)) {
                    RecordReader.RecordIterator<InternalRow> batch;
                    while ((batch = reader.readBatch()) != null) {
                        try {
                            InternalRow row;
                            while ((row = batch.next()) != null) {
                                if (!add(row)) {
                                    return false;
                                }
                            }
                        } finally {
                            batch.releaseBatch();
                        }
                    }
                }
            }
        }
        return true;
    }

    /** Caches the row read, under its key; false, caching nothing, when the cache's share cannot hold it. */
    private boolean add(InternalRow read) {
        BinaryRow key = keySerializer.toBinaryRow(keyOfRead.replaceRow(read)).copy();
        BinaryRow value = valueSerializer.toBinaryRow(valueOfRead.replaceRow(read)).copy();
        Cached before = rows.get(key);
        long bytes = value.getSizeInBytes() + ROW_OVERHEAD + (before == null ? key.getSizeInBytes() + KEY_OVERHEAD : 0);
        if (!charge(bytes)) {
            return false;
        }
        List<BinaryRow> list = before == null ? new ArrayList<>(1) : before.rows();
        list.add(value);
        rows.put(key, new Cached(list, (before == null ? 0 : before.bytes()) + bytes));
        return true;
    }

    private boolean charge(long bytes) {
        if (cache.bytes() + bytes > share() || !cache.tryGrow(bytes)) {
            return false;
        }
        peakCacheBytes = Math.max(peakCacheBytes, cache.bytes());
        return true;
    }

    private long share() {
        return context.options().budgetBytes() / 2;
    }

    /**
     * The rows of {@code key} (values of the key fields, in their order), of the projected fields;
     * cached rows are not copied and must not be changed.
     *
     * @throws ReadCancelledException when the context was cancelled
     * @throws io.paimongov.spi.ResourceExhaustedException when the budget cannot hold the reader of one split
     */
    public List<InternalRow> lookup(InternalRow key) throws IOException {
        check();
        lookups++;
        for (int i = 0; i < key.getFieldCount(); i++) {
            if (key.isNullAt(i)) {
                return List.of();
            }
        }
        BinaryRow binary = keySerializer.toBinaryRow(key).copy();
        Cached cached = rows.get(binary);
        List<BinaryRow> found;
        if (cached != null) {
            found = cached.rows();
        } else if (complete) {
            found = List.of();
        } else {
            found = scan(binary);
        }
        if (!found.isEmpty()) {
            hits++;
        }
        return List.copyOf(found);
    }

    /**
     * Reads the rows of {@code key} from the table and caches them, evicting the least recently used
     * keys for room. When the read cannot get its reader's memory, the cache gives every key back and
     * the read tries once more.
     */
    private List<BinaryRow> scan(BinaryRow key) throws IOException {
        keyScans++;
        List<BinaryRow> found;
        try {
            found = read(key);
        } catch (ResourceExhaustedException e) {
            if (rows.isEmpty()) {
                throw e;
            }
            clear();
            found = read(key);
        }
        long bytes = key.getSizeInBytes() + KEY_OVERHEAD + found.stream().mapToLong(r -> r.getSizeInBytes() + ROW_OVERHEAD).sum();
        boolean fits = charge(bytes);
        Iterator<Map.Entry<BinaryRow, Cached>> eldest = rows.entrySet().iterator();
        while (!fits && eldest.hasNext()) {
            long freed = eldest.next().getValue().bytes();
            eldest.remove();
            cache.shrink(freed);
            fits = charge(bytes);
        }
        if (fits) {
            rows.put(key, new Cached(found, bytes));
        }
        return found;
    }

    /** The rows of {@code key} in the table's latest snapshot, through a governed read filtered by the key. */
    private List<BinaryRow> read(BinaryRow key) throws IOException {
        RowType keyType = table.rowType().project(keyFields);
        PredicateBuilder builder = new PredicateBuilder(table.rowType());
        List<Predicate> equals = new ArrayList<>();
        for (int i = 0; i < keyFields.length; i++) {
            equals.add(builder.equal(keyFields[i], InternalRow.createFieldGetter(keyType.getTypeAt(i), i).getFieldOrNull(key)));
        }
        List<BinaryRow> found = new ArrayList<>();
        try (GovernedTableRead read = open(PredicateBuilder.and(equals))) {
            for (Split split : read.plan()) {
                try (RecordReader<InternalRow> reader = read.reader(split)) {
                    reader.forEachRemaining(row -> {
                        if (keySerializer.toBinaryRow(keyOfRead.replaceRow(row)).equals(key)) {
                            found.add(valueSerializer.toBinaryRow(valueOfRead.replaceRow(row)).copy());
                        }
                    });
                }
            }
        }
        return found;
    }

    /** A governed read of the fields looked up, with {@code key} (may be null) and the restriction as its filter. */
    private GovernedTableRead open(Predicate key) {
        GovernedTableRead read = GovernedTableRead.open(table, context).withProjection(readFields);
        List<Predicate> filters = new ArrayList<>();
        if (key != null) {
            filters.add(key);
        }
        if (restriction != null) {
            filters.add(restriction);
        }
        return filters.isEmpty() ? read : read.withFilter(PredicateBuilder.and(filters));
    }

    private void clear() {
        rows.clear();
        cache.shrink(cache.bytes());
    }

    /** A snapshot of what the lookups did so far; {@code buckets} and {@code buildBytes} are 0 (primary-key lookups only). */
    public LookupSnapshot metrics() {
        return new LookupSnapshot(lookups, hits, refreshes, 0, cache.isClosed() ? 0 : cache.bytes(), peakCacheBytes, 0,
                cancelled.get(), keyScans, 0);
    }

    /** Drops the cache and gives its reservation back. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        rows.clear();
        cache.close();
    }

    private void check() throws ReadCancelledException {
        if (context.isCancelled()) {
            cancelled.set(true);
            throw new ReadCancelledException(context.cancelReason().orElse("cancelled"));
        }
    }
}
