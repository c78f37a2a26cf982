package io.paimongov.connector.flink.read;

import io.paimongov.connector.flink.sink.SlotMemory;
import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.read.GovernedLookup;
import io.paimongov.runtime.read.LookupSnapshot;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.bucket.BucketFunction;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkRowData;
import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.lookup.rocksdb.RocksDBOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.ProjectedRow;

/**
 * The lookup join of a governed table keyed by its whole primary key: each lookup goes to a {@link
 * GovernedLookup} of the table (Paimon's local lookup files, their page cache charged page by page
 * and evicted when the budget gives no more, the files in the task's spill scope), refreshed from
 * the table's latest snapshot every {@code lookup.continuous.discovery-interval} (else {@code
 * continuous.discovery-interval}), as Paimon's lookup function refreshes. The key of each lookup
 * gives the partition and the bucket, as Paimon's partial-cache lookup computes them.
 *
 * <p>Memory: Flink lets no lookup function declare managed memory, so this one reserves from its
 * slot's managed memory what nothing else holds ({@link SlotMemory#openUndeclared}): at most {@code
 * governance.memory.budget}, by default the table's {@code lookup.cache-max-memory-size}, capped at
 * the slot's managed memory. Its context's gauges and {@code lookups}, {@code lookupHits}, {@code
 * lookupCacheBytes}, {@code peakLookupCacheBytes} go to the function's metric group under {@code paimonGovernance}.
 *
 * <p>Which lookups it serves is {@link #serves}; the others stay Paimon's. Flink calls {@code open},
 * {@code lookup} and {@code close} on the task thread; not thread-safe.
 */
public final class GovernedLookupFunction extends LookupFunction {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final HashMap<String, String> governance;
    private final int[] projection;
    private final ArrayList<String> joinKeys;

    private transient AtomicBoolean closing;
    private transient ResourceContext context;
    private transient GovernedLookup lookup;
    private transient ProjectedRow keyToPrimaryKey;
    private transient ProjectedRow keyToTrimmedKey;
    private transient Projection partitionOfKey;
    private transient Projection bucketKeyOfKey;
    private transient BucketFunction bucketFunction;
    private transient ProjectedRow output;
    private transient InternalRowSerializer copier;
    private transient long refreshMillis;
    private transient long nextRefresh;

    /**
     * @param table the table, its time travel options removed (a lookup reads the latest snapshot)
     * @param governance the lookup's {@code governance.*} options, validated
     * @param projection the fields a lookup returns, as indexes into the table's row type
     * @param joinKeys the fields of a lookup's key row, in its order; {@link #serves} them
     */
    public GovernedLookupFunction(FileStoreTable table, Map<String, String> governance, int[] projection, List<String> joinKeys) {
        this.table = table;
        this.governance = new HashMap<>(governance);
        this.projection = projection.clone();
        this.joinKeys = new ArrayList<>(joinKeys);
    }

    /**
     * Whether lookups of {@code table} by {@code joinKeys} are governed: the keys are the whole
     * primary key, the buckets fixed, and the table asks for none of what only Paimon's lookup
     * function does: {@code lookup.cache} other than {@code auto} (a full cache), {@code
     * scan.partitions} (dynamic partitions), {@code lookup.refresh.time-periods-blacklist}, a merge
     * engine other than deduplicate without a lookup changelog, or sequence fields with deduplicate
     * (which Paimon's partial cache refuses too).
     */
    public static boolean serves(FileStoreTable table, List<String> joinKeys) {
        Options options = Options.fromMap(table.options());
        CoreOptions core = table.coreOptions();
        return !table.primaryKeys().isEmpty()
                && new HashSet<>(table.primaryKeys()).equals(new HashSet<>(joinKeys))
                && table.bucketMode() == BucketMode.HASH_FIXED
                && options.get(FlinkConnectorOptions.LOOKUP_CACHE_MODE) == FlinkConnectorOptions.LookupCacheMode.AUTO
                && !options.contains(FlinkConnectorOptions.SCAN_PARTITIONS)
                && !options.contains(FlinkConnectorOptions.LOOKUP_REFRESH_TIME_PERIODS_BLACKLIST)
                && (core.needLookup() || core.mergeEngine() == CoreOptions.MergeEngine.DEDUPLICATE)
                && !(core.mergeEngine() == CoreOptions.MergeEngine.DEDUPLICATE && !core.sequenceField().isEmpty());
    }

    @Override
    public void open(FunctionContext functionContext) throws Exception {
        super.open(functionContext);
        closing = new AtomicBoolean();
        String name = "flink-lookup-" + table.name() + "-" + functionContext.getTaskInfo().getIndexOfThisSubtask();
        long cacheMax = table.coreOptions().lookupCacheMaxMemory().getBytes();
        context = SlotMemory.openUndeclared(taskEnvironment(functionContext), functionContext.getMetricGroup(), name, governance,
                cacheMax, new FlinkTaskCancellation(closing::get));
        lookup = GovernedLookup.open(table, context);
        TableSchema schema = table.schema();
        List<String> primaryKeys = schema.primaryKeys();
        keyToPrimaryKey = ProjectedRow.from(primaryKeys.stream().mapToInt(joinKeys::indexOf).toArray());
        keyToTrimmedKey = ProjectedRow.from(schema.trimmedPrimaryKeys().stream().mapToInt(joinKeys::indexOf).toArray());
        partitionOfKey = CodeGenUtils.newProjection(schema.logicalPrimaryKeysType(),
                schema.partitionKeys().stream().mapToInt(primaryKeys::indexOf).toArray());
        bucketKeyOfKey = CodeGenUtils.newProjection(schema.logicalPrimaryKeysType(),
                schema.bucketKeys().stream().mapToInt(primaryKeys::indexOf).toArray());
        bucketFunction = BucketFunction.create(new CoreOptions(schema.options()), schema.logicalBucketKeyType());
        output = ProjectedRow.from(projection);
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
     * The table's row of the key (the join keys' values, in their order), projected, or nothing;
     * refreshes first when the interval has passed.
     *
     * @throws IOException when Paimon cannot read the table's files or build a lookup file
     * @throws io.paimongov.spi.ResourceExhaustedException when the slot cannot hold one reader of the
     *     table's files, naming the lookup
     */
    @Override
    public Collection<RowData> lookup(RowData keyRow) throws IOException {
        if (System.currentTimeMillis() >= nextRefresh) {
            refresh();
        }
        InternalRow key = new FlinkRowWrapper(keyRow);
        InternalRow primaryKey = keyToPrimaryKey.replaceRow(key);
        BinaryRow partition = partitionOfKey.apply(primaryKey);
        Integer buckets = lookup.buckets(partition);
        if (buckets == null) {
            return List.of();
        }
        int bucket = bucketFunction.bucket(bucketKeyOfKey.apply(primaryKey), buckets);
        InternalRow row = lookup.lookup(partition, bucket, keyToTrimmedKey.replaceRow(key));
        if (row == null) {
            return List.of();
        }
        return List.of(new FlinkRowData(copier.copy(output.replaceRow(row))));
    }

    /** Closes the lookup (its files and cached pages) and its context, which gives the memory back. */
    @Override
    public void close() throws Exception {
        if (closing != null) {
            closing.set(true);
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

    /**
     * The task's environment, which Flink keeps from functions: {@link FunctionContext}'s runtime
     * context and the {@link StreamingRuntimeContext}'s environment are private fields.
     *
     * @throws IllegalStateException when this Flink keeps them elsewhere or the function runs outside a streaming task
     */
    private static Environment taskEnvironment(FunctionContext functionContext) {
        try {
            Object runtime = field(FunctionContext.class, "context").get(functionContext);
            if (!(runtime instanceof StreamingRuntimeContext)) {
                throw new IllegalStateException("a governed lookup runs in a Flink streaming task; its runtime context is "
                        + (runtime == null ? "missing" : runtime.getClass().getName()));
            }
            return (Environment) field(StreamingRuntimeContext.class, "taskEnvironment").get(runtime);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot find the task of a lookup function in this Flink: connector-flink is built"
                    + " for Flink 2.2", e);
        }
    }

    private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
        Field f = owner.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
