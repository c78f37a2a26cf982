package io.paimongov.connector.flink.read;

import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.read.GovernedFieldLookup;
import io.paimongov.runtime.read.GovernedLookup;
import io.paimongov.runtime.read.LookupSnapshot;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.JoinedRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkRowData;
import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.flink.lookup.PartitionLoader;
import org.apache.paimon.flink.lookup.RefreshBlacklist;
import org.apache.paimon.lookup.rocksdb.RocksDBOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;

/**
 * The lookup join of a governed table through governed lookups ({@link TableLookups}): by the whole
 * primary key (where Paimon's lookup would use its partial cache) into the table's local lookup
 * files ({@link GovernedLookup}: their page cache charged page by page and evicted when the budget
 * gives no more, the files in the task's spill scope); by any other fields (where Paimon would keep a
 * full cache in RocksDB) through a cache of each key's rows within half the budget ({@link
 * GovernedFieldLookup}: the whole table when it fits, else the keys looked up most recently, the
 * others read from the table). Both refresh from the table's latest snapshot every {@code
 * lookup.continuous.discovery-interval} (else {@code continuous.discovery-interval}), as Paimon's
 * lookup function does.
 *
 * <p>Memory: Flink lets no lookup function declare managed memory, so its budget is on the JVM
 * heap ({@link LookupMemory}): {@code governance.memory.budget}, by default the table's {@code
 * lookup.cache-max-memory-size} (what Paimon's lookup caches on the heap). Its context's gauges and {@code lookups}, {@code lookupHits}, {@code
 * lookupKeyScans}, {@code lookupCacheBytes}, {@code peakLookupCacheBytes} go to the function's metric
 * group under {@code paimonGovernance}.
 *
 * <p>As Paimon's, with {@code scan.partitions} ({@code max_pt()}, {@code max_two_pt()}, fixed
 * partitions) it looks each key up in the partitions loaded, which it checks every {@code
 * lookup.dynamic-partition.refresh-interval}, restricting a lookup by fields to them; and it does
 * not refresh while {@code lookup.refresh.time-periods-blacklist} holds the moment. Flink calls
 * {@code open}, {@code lookup} and {@code close} on the task thread; not thread-safe.
 */
public final class GovernedLookupFunction extends LookupFunction {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final HashMap<String, String> governance;
    private final int[] projection;
    private final ArrayList<String> joinKeys;
    /** The join keys and, with {@code scan.partitions}, the partition keys after them: the fields of a key looked up. */
    private final ArrayList<String> lookupKeys;
    private final PartitionLoader partitions;
    private final RefreshBlacklist blacklist;

    private transient FlinkTaskCancellation cancellation;
    private transient ResourceContext context;
    private transient TableLookups lookup;
    private transient InternalRowSerializer copier;
    private transient long refreshMillis;
    private transient long nextRefresh;

    /**
     * @param table the table, its time travel options removed (a lookup reads the latest snapshot)
     * @param governance the lookup's {@code governance.*} options, validated
     * @param projection the fields a lookup returns, as indexes into the table's row type
     * @param joinKeys the fields of a lookup's key row, in its order
     */
    public GovernedLookupFunction(FileStoreTable table, Map<String, String> governance, int[] projection, List<String> joinKeys) {
        this.table = table;
        this.governance = new HashMap<>(governance);
        this.projection = projection.clone();
        this.joinKeys = new ArrayList<>(joinKeys);
        this.lookupKeys = new ArrayList<>(joinKeys);
        this.partitions = PartitionLoader.of(table);
        if (partitions != null) {
            // Paimon's rule: the join keys hold no partition key; the loaded partitions' values are appended to each key.
            partitions.addPartitionKeysTo(lookupKeys, new ArrayList<>());
        }
        this.blacklist = RefreshBlacklist.create(table.options().get(FlinkConnectorOptions.LOOKUP_REFRESH_TIME_PERIODS_BLACKLIST.key()));
    }

    /**
     * Whether lookups by {@code joinKeys} go to the table's local lookup files ({@link
     * GovernedLookup}), as Paimon's partial cache decides it: the keys are the whole primary key,
     * the buckets fixed, {@code lookup.cache} is {@code auto}, and the merge engine is deduplicate
     * without sequence fields or the table keeps a lookup changelog. Other lookups are by fields
     * ({@link GovernedFieldLookup}).
     */
    static boolean byPrimaryKey(FileStoreTable table, List<String> joinKeys) {
        CoreOptions core = table.coreOptions();
        return !table.primaryKeys().isEmpty()
                && new HashSet<>(table.primaryKeys()).equals(new HashSet<>(joinKeys))
                && table.bucketMode() == BucketMode.HASH_FIXED
                && Options.fromMap(table.options()).get(FlinkConnectorOptions.LOOKUP_CACHE_MODE) == FlinkConnectorOptions.LookupCacheMode.AUTO
                && (core.needLookup() || core.mergeEngine() == CoreOptions.MergeEngine.DEDUPLICATE)
                && !(core.mergeEngine() == CoreOptions.MergeEngine.DEDUPLICATE && !core.sequenceField().isEmpty());
    }

    @Override
    public void open(FunctionContext functionContext) throws Exception {
        super.open(functionContext);
        cancellation = new FlinkTaskCancellation(() -> false);
        String name = "flink-lookup-" + table.name() + "-" + functionContext.getTaskInfo().getIndexOfThisSubtask();
        long cacheMax = table.coreOptions().lookupCacheMaxMemory().getBytes();
        context = LookupMemory.open(functionContext, name, governance, cacheMax, cancellation);
        lookup = byPrimaryKey(table, lookupKeys)
                ? TableLookups.byPrimaryKey(table, context, projection, lookupKeys)
                : TableLookups.byFields(table, context, projection, lookupKeys);
        if (partitions != null) {
            partitions.open();
            partitions.checkRefresh();
            lookup.restrict(partitions.partitions().isEmpty() ? null : partitions.createSpecificPartFilter());
        }
        copier = new InternalRowSerializer(table.rowType().project(projection));
        Options options = Options.fromMap(table.options());
        Duration interval = options.getOptional(RocksDBOptions.LOOKUP_CONTINUOUS_DISCOVERY_INTERVAL)
                .orElse(options.get(CoreOptions.CONTINUOUS_DISCOVERY_INTERVAL));
        refreshMillis = interval.toMillis();
        registerGauges(functionContext.getMetricGroup());
        refresh();
    }

    private void registerGauges(MetricGroup metrics) {
        MetricGroup group = metrics.addGroup("paimonGovernance");
        group.gauge("lookups", () -> snapshot().lookups());
        group.gauge("lookupHits", () -> snapshot().hits());
        group.gauge("lookupKeyScans", () -> snapshot().keyScans());
        group.gauge("lookupCacheBytes", () -> snapshot().cacheBytes());
        group.gauge("peakLookupCacheBytes", () -> snapshot().peakCacheBytes());
    }

    private LookupSnapshot snapshot() {
        return lookup.metrics();
    }

    private void refresh() throws IOException {
        lookup.refresh();
        nextRefresh = System.currentTimeMillis() + refreshMillis;
    }

    /**
     * The table's rows of the key (the join keys' values, in their order), projected; with {@code
     * scan.partitions}, those of every partition loaded. Refreshes first when the interval has
     * passed or the partitions to load changed, unless {@code lookup.refresh.time-periods-blacklist}
     * holds the moment.
     *
     * @throws IOException when Paimon cannot read the table's files or build a lookup file
     * @throws io.paimongov.spi.ResourceExhaustedException when the slot cannot hold one reader of the
     *     table's files, naming the lookup
     */
    @Override
    public Collection<RowData> lookup(RowData keyRow) throws IOException {
        if (blacklist == null || blacklist.canRefresh()) {
            if (partitions != null && partitions.checkRefresh()) {
                lookup.restrict(partitions.partitions().isEmpty() ? null : partitions.createSpecificPartFilter());
                refresh();
            } else if (System.currentTimeMillis() >= nextRefresh) {
                refresh();
            }
        }
        InternalRow key = new FlinkRowWrapper(keyRow);
        List<RowData> rows = new ArrayList<>();
        if (partitions == null) {
            add(lookup.lookup(key), rows);
        } else {
            for (BinaryRow partition : partitions.partitions()) {
                add(lookup.lookup(JoinedRow.join(key, partition)), rows);
            }
        }
        return rows;
    }

    private void add(List<InternalRow> found, List<RowData> rows) {
        for (InternalRow row : found) {
            rows.add(new FlinkRowData(copier.copy(row)));
        }
    }

    /** Closes the lookup (its files and cached pages) and its context, which gives the memory back. */
    @Override
    public void close() throws Exception {
        if (cancellation != null) {
            // A lookup function learns of its task's end only here: what is still running stops.
            cancellation.cancel("the lookup function closed");
        }
        try {
            if (lookup != null) {
                lookup.close();
            }
        } finally {
            try {
                if (context != null) {
                    context.close();
                }
            } finally {
                super.close();
            }
        }
    }
}
