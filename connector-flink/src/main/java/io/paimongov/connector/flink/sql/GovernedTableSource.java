package io.paimongov.connector.flink.sql;

import io.paimongov.connector.flink.read.GovernedLookupFunction;
import io.paimongov.connector.flink.read.GovernedReadOperator;
import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.flink.source.operator.MonitorSource;
import org.apache.paimon.flink.utils.JavaTypeInfo;
import org.apache.paimon.flink.utils.TableScanUtils;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;

/**
 * A scan of a Paimon data table through governed reads, bounded (the latest snapshot) or unbounded
 * (that snapshot, then every later one's changes, as the table's {@code scan.mode} says). Paimon's
 * split monitor ({@link MonitorSource}, one task, the planning and the checkpointed scan position
 * Paimon's own {@code scan.dedicated-split-generation} source uses) sends each split to a {@link
 * GovernedReadOperator}: the splits of one partition and bucket to the same one, in order, as
 * Paimon does, unless the table is an append table without ordered buckets. Each read operator is
 * on its slot's managed memory (it declares operator-scope managed memory with the weight {@code
 * governance.flink.managed-memory-weight}, as the governed writers do, and shares the slot fairly
 * with them). An unbounded scan produces the changelog Paimon's source produces ({@link
 * #getChangelogMode()}). Top-level projection is pushed into the read; Flink applies filters and
 * limits after it. Lookup joins are governed too ({@link #getLookupRuntimeProvider}).
 *
 * <p>Used by the planner on one thread; the runtime parts ({@link MonitorSource}, {@link
 * GovernedReadOperator}) are serialized with the job.
 */
final class GovernedTableSource implements ScanTableSource, LookupTableSource, SupportsProjectionPushDown {

    private final ObjectIdentifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> governance;
    private final boolean bounded;
    private final ScanTableSource paimon;
    private int[] projection;

    /**
     * @param bounded whether the scan reads one snapshot (batch mode or {@code scan.bounded})
     * @param paimon Paimon's own source of the table: its changelog mode for unbounded scans
     * @param governance the read's {@code governance.*} options, validated
     * @throws IllegalArgumentException when the table's options ask for what Paimon's streaming
     *     source refuses (a merge engine without a changelog producer, a consumer id without {@code
     *     consumer.expiration-time}) or what a governed scan does not do ({@code
     *     source.checkpoint-align.enabled}), naming the key
     */
    GovernedTableSource(ObjectIdentifier identifier, FileStoreTable table, Map<String, String> governance, boolean bounded,
            ScanTableSource paimon) {
        this.identifier = identifier;
        this.table = table;
        this.governance = governance;
        this.bounded = bounded;
        this.paimon = paimon;
        this.projection = IntStream.range(0, table.rowType().getFieldCount()).toArray();
        if (!bounded) {
            checkStreaming(table);
        }
    }

    private GovernedTableSource(GovernedTableSource from) {
        this.identifier = from.identifier;
        this.table = from.table;
        this.governance = from.governance;
        this.bounded = from.bounded;
        this.paimon = from.paimon;
        this.projection = from.projection.clone();
    }

    private void checkStreaming(FileStoreTable table) {
        Options options = Options.fromMap(table.options());
        if (options.get(FlinkConnectorOptions.SOURCE_CHECKPOINT_ALIGN_ENABLED)) {
            throw new IllegalArgumentException("'" + FlinkConnectorOptions.SOURCE_CHECKPOINT_ALIGN_ENABLED.key() + "' = 'true' on "
                    + identifier + ": a governed streaming scan does not align snapshots with checkpoints; unset it, or read"
                    + " the table with 'connector' = 'paimon' (not governed)");
        }
        if (options.contains(CoreOptions.CONSUMER_ID) && !options.contains(CoreOptions.CONSUMER_EXPIRATION_TIME)) {
            throw new IllegalArgumentException("'" + CoreOptions.CONSUMER_ID.key() + "' on " + identifier + " needs '"
                    + CoreOptions.CONSUMER_EXPIRATION_TIME.key() + "' on the table (ALTER TABLE), so that consumers that"
                    + " left do not keep snapshots forever");
        }
        TableScanUtils.streamingReadingValidate(table);
    }

    /** Insert-only for a bounded scan (merged rows); an unbounded scan's is Paimon's source's. */
    @Override
    public ChangelogMode getChangelogMode() {
        return bounded ? ChangelogMode.insertOnly() : paimon.getChangelogMode();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        int[] fields = projection.clone();
        TypeInformation<RowData> rowType = context.createTypeInformation(LogicalTypeConversion.toLogicalType(table.rowType().project(fields)));
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(ProviderContext provider, StreamExecutionEnvironment env) {
                return scan(env, fields, rowType);
            }

            @Override
            public boolean isBounded() {
                return bounded;
            }
        };
    }

    private DataStream<RowData> scan(StreamExecutionEnvironment env, int[] fields, TypeInformation<RowData> rowType) {
        Options options = Options.fromMap(table.options());
        MonitorSource monitor = new MonitorSource(table.newReadBuilder().withProjection(fields),
                options.get(CoreOptions.CONTINUOUS_DISCOVERY_INTERVAL).toMillis(), true, bounded);
        SingleOutputStreamOperator<Split> splits = env.fromSource(monitor, WatermarkStrategy.noWatermarks(),
                "paimon-gov splits " + table.name(), new JavaTypeInfo<>(Split.class)).forceNonParallel();
        DataStream<Split> routed;
        if (unordered(table)) {
            routed = splits.rebalance();
        } else {
            boolean withPartition = options.get(FlinkConnectorOptions.READ_SHUFFLE_BUCKET_WITH_PARTITION);
            routed = splits.partitionCustom(
                    (Tuple2<BinaryRow, Integer> key, int channels) -> withPartition
                            ? ChannelComputer.select(key.f0, key.f1, channels)
                            : ChannelComputer.select(key.f1, channels),
                    split -> Tuple2.of(((DataSplit) split).partition(), ((DataSplit) split).bucket()));
        }
        int weight = FlinkGovernanceProvider.managedMemoryWeight(GovernanceOptions.of(governance).providerOptions());
        SingleOutputStreamOperator<RowData> rows =
                routed.transform("paimon-gov read " + table.name(), rowType, new GovernedReadOperator(table, governance, fields));
        Integer parallelism = options.get(FlinkConnectorOptions.SCAN_PARALLELISM);
        if (parallelism != null) {
            rows.setParallelism(parallelism);
        }
        rows.getTransformation().declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight);
        return rows;
    }

    /**
     * Whether the table's splits may be read in any order, as Paimon's source decides it: an append
     * table without buckets, or with buckets whose order it does not keep ({@code
     * bucket-append-ordered} false).
     */
    private static boolean unordered(FileStoreTable table) {
        if (!table.primaryKeys().isEmpty()) {
            return false;
        }
        BucketMode mode = table.bucketMode();
        return mode == BucketMode.BUCKET_UNAWARE
                || mode == BucketMode.HASH_FIXED && !Options.fromMap(table.options()).get(CoreOptions.BUCKET_APPEND_ORDERED);
    }

    /**
     * A lookup join is governed ({@link GovernedLookupFunction}, synchronous, on the latest
     * snapshot).
     *
     * @throws IllegalArgumentException when the join keys hold a partition key of a table with
     *     {@code scan.partitions} (Paimon's lookup refuses it too)
     */
    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        List<String> names = table.rowType().getFieldNames();
        List<String> joinKeys = new ArrayList<>();
        for (int[] key : context.getKeys()) {
            joinKeys.add(names.get(projection[key[0]]));
        }
        return LookupFunctionProvider.of(new GovernedLookupFunction(latestSnapshotOf(table), governance, projection, joinKeys));
    }

    /** The table without its time travel options, as Paimon's lookup reads it: the latest snapshot, always. */
    private static FileStoreTable latestSnapshotOf(FileStoreTable table) {
        Map<String, String> options = new HashMap<>(table.options());
        List.of(CoreOptions.SCAN_TIMESTAMP, CoreOptions.SCAN_TIMESTAMP_MILLIS, CoreOptions.SCAN_WATERMARK,
                        CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS, CoreOptions.SCAN_SNAPSHOT_ID, CoreOptions.SCAN_TAG_NAME,
                        CoreOptions.SCAN_VERSION)
                .forEach(option -> options.remove(option.key()));
        CoreOptions.StartupMode mode = CoreOptions.fromMap(options).startupMode();
        options.put(CoreOptions.SCAN_MODE.key(),
                (mode == CoreOptions.StartupMode.COMPACTED_FULL ? mode : CoreOptions.StartupMode.LATEST_FULL).toString());
        return table.copy(table.schema().copy(options));
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        int[] fields = new int[projectedFields.length];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = projectedFields[i][0];
        }
        this.projection = fields;
    }

    @Override
    public DynamicTableSource copy() {
        return new GovernedTableSource(this);
    }

    @Override
    public String asSummaryString() {
        return "GovernedPaimonScan";
    }
}
