package io.paimongov.connector.flink.sql;

import io.paimongov.connector.flink.read.GovernedReadOperator;
import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.dag.Transformation;
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
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.util.InstantiationUtil;
import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;

/**
 * A bounded scan of a Paimon data table through governed reads: the splits of the table's latest
 * snapshot, planned when the job is built, go to {@link GovernedReadOperator}s, each on its slot's
 * managed memory (it declares operator-scope managed memory with the weight {@code
 * governance.flink.managed-memory-weight}, as the governed writers do, and shares the slot fairly
 * with them). Top-level projection is pushed into the read; Flink applies filters and limits after
 * it. Lookup joins are Paimon's own ({@link LookupTableSource} of Paimon's source, unchanged).
 *
 * <p>Used by the planner on one thread; the runtime part ({@link GovernedReadOperator}) is
 * serialized with the job.
 */
final class GovernedTableSource implements ScanTableSource, LookupTableSource, SupportsProjectionPushDown {

    private final ObjectIdentifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> governance;
    private final LookupTableSource paimon;
    private int[] projection;

    /**
     * @param paimon Paimon's own source of the table, for lookup joins
     * @param governance the read's {@code governance.*} options, validated
     */
    GovernedTableSource(ObjectIdentifier identifier, FileStoreTable table, Map<String, String> governance, LookupTableSource paimon) {
        this.identifier = identifier;
        this.table = table;
        this.governance = governance;
        this.paimon = paimon;
        this.projection = IntStream.range(0, table.rowType().getFieldCount()).toArray();
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
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
                return true;
            }
        };
    }

    private DataStream<RowData> scan(StreamExecutionEnvironment env, int[] fields, TypeInformation<RowData> rowType) {
        List<Split> splits = table.newReadBuilder().withProjection(fields).newScan().plan().splits();
        List<byte[]> elements = new ArrayList<>();
        for (Split split : splits) {
            try {
                elements.add(InstantiationUtil.serializeObject(split));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot serialize a split of " + identifier, e);
            }
        }
        if (elements.isEmpty()) {
            elements.add(new byte[0]);
        }
        int readers = Math.max(1, Math.min(env.getParallelism() > 0 ? env.getParallelism() : 1, splits.size()));
        int weight = FlinkGovernanceProvider.managedMemoryWeight(GovernanceOptions.of(governance).providerOptions());
        SingleOutputStreamOperator<RowData> rows = env.fromData(elements, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                .name("paimon-gov splits " + table.name())
                .rebalance()
                .transform("paimon-gov read " + table.name(), rowType, new GovernedReadOperator(table, governance, fields))
                .setParallelism(readers);
        Transformation<RowData> read = rows.getTransformation();
        read.declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight);
        return rows;
    }

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        return paimon.getLookupRuntimeProvider(context);
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
        GovernedTableSource copy = new GovernedTableSource(identifier, table, governance, paimon);
        copy.projection = projection.clone();
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "GovernedPaimonScan";
    }
}
