package io.paimongov.connector.flink.sql;

import io.paimongov.connector.flink.sink.GovernedPaimonSink;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

/**
 * The SQL sink of a Paimon data table through governed writes: Paimon's own table sink ({@code
 * FlinkTableSink}: the changelog it accepts, {@code INSERT OVERWRITE} with static or dynamic
 * partitions, row-level {@code UPDATE}/{@code DELETE}, truncation) with the write itself replaced
 * by {@link GovernedPaimonSink}: rows routed as Paimon routes them, one governed write per writer
 * subtask on the slot's managed memory, exactly-once commits on checkpoints or at the end of a
 * bounded input. {@code sink.parallelism} sets the writers' parallelism as in Paimon.
 *
 * <p>Planner objects: built and copied on the planning thread.
 */
final class GovernedTableSink extends org.apache.paimon.flink.sink.FlinkTableSink {

    private final FileStoreTable fileStoreTable;
    private final HashMap<String, String> governance;

    GovernedTableSink(
            ObjectIdentifier identifier, FileStoreTable table, DynamicTableFactory.Context context, Map<String, String> governance) {
        super(identifier, table, context);
        this.fileStoreTable = table;
        this.governance = new HashMap<>(governance);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(DynamicTableSink.Context context) {
        if (overwrite && !context.isBounded()) {
            throw new UnsupportedOperationException("INSERT OVERWRITE of '" + tableIdentifier.asSummaryString()
                    + "' needs a bounded input: it commits once, at the end");
        }
        Integer parallelism = Options.fromMap(fileStoreTable.options()).get(FlinkConnectorOptions.SINK_PARALLELISM);
        GovernedPaimonSink.Builder sink = GovernedPaimonSink.into(fileStoreTable).options(governance);
        if (overwrite) {
            sink.overwrite(staticPartitions);
        }
        if (parallelism != null) {
            if (parallelism < 1) {
                throw new IllegalArgumentException("'" + FlinkConnectorOptions.SINK_PARALLELISM.key() + "' = '" + parallelism
                        + "' of '" + tableIdentifier.asSummaryString() + "' is not a positive integer");
            }
            sink.parallelism(parallelism);
        }
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(ProviderContext provider, DataStream<RowData> rows) {
                return sink.write(rows, FlinkRowWrapper::new);
            }
        };
    }

    @Override
    public DynamicTableSink copy() {
        GovernedTableSink copied = new GovernedTableSink(tableIdentifier, fileStoreTable, context, governance);
        copied.staticPartitions = new HashMap<>(staticPartitions);
        copied.overwrite = overwrite;
        return copied;
    }

    @Override
    public String asSummaryString() {
        return "GovernedPaimonSink";
    }
}
