package io.paimongov.connector.flink.sql;

import java.lang.reflect.Field;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkTableFactory;
import org.apache.paimon.flink.source.DataTableSource;
import org.apache.paimon.flink.source.FlinkTableSource;
import org.apache.paimon.flink.sink.FlinkTableSink;
import org.apache.paimon.flink.sink.FlinkTableSinkBase;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/**
 * Tables of a {@link GovernedFlinkCatalog}, and tables declared outside a catalog with {@code
 * 'connector' = 'paimon-governed'} and {@code 'path'} (as Paimon's {@code 'connector' = 'paimon'}):
 * the table's definition is Paimon's own ({@link FlinkTableFactory}); reads of Paimon data tables,
 * bounded or streaming, and their lookup joins go through governed reads and lookups ({@link
 * GovernedTableSource}), and their writes through governed writes ({@link GovernedTableSink}). Format tables (plain
 * CSV, Parquet, ... directories a Paimon catalog may list) keep Paimon's sink: they have no
 * writer memory to govern.
 *
 * <p>Paimon builds the table a statement writes (its options merged with the statement's dynamic
 * options, its schema checked against Flink's); this takes that table from Paimon's sink, whose
 * field is protected ({@code FlinkTableSinkBase.table}).
 *
 * <p>Stateless apart from the catalog's governance defaults; Flink calls it on the planning thread.
 */
public final class GovernedTableFactory extends FlinkTableFactory {

    private static final Field SINK_TABLE = tableField(FlinkTableSinkBase.class);
    private static final Field SOURCE_TABLE = tableField(FlinkTableSource.class);

    private final GovernanceSettings defaults;

    /** For {@code 'connector' = 'paimon-governed'}, found through the service loader. */
    public GovernedTableFactory() {
        super(null);
        this.defaults = GovernanceSettings.none();
    }

    GovernedTableFactory(GovernedFlinkCatalog catalog, GovernanceSettings defaults) {
        super(catalog);
        this.defaults = defaults;
    }

    @Override
    public String factoryIdentifier() {
        return GovernedCatalogFactory.IDENTIFIER;
    }

    /**
     * A read of a data table is a governed scan ({@link GovernedTableSource}), bounded in batch mode
     * or with {@code 'scan.bounded' = 'true'}, else unbounded; a system table's or a format table's
     * is Paimon's own source.
     *
     * @throws IllegalArgumentException naming a bad {@code governance.*} key of the table or the
     *     statement's hint, or a streaming option a governed scan refuses
     */
    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        DynamicTableSource paimon = super.createDynamicTableSource(context);
        if (!(paimon instanceof DataTableSource source)) {
            return paimon;
        }
        Table table = tableOf(SOURCE_TABLE, source);
        if (!(table instanceof FileStoreTable fileStoreTable)) {
            return paimon;
        }
        return new GovernedTableSource(context.getObjectIdentifier(), fileStoreTable, defaults.forTable(table.options()),
                bounded(context, table), source);
    }

    /** Whether the read is bounded, as Paimon decides it: batch mode, or the table's {@code scan.bounded}. */
    private static boolean bounded(Context context, Table table) {
        return context.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) != RuntimeExecutionMode.STREAMING
                || Boolean.parseBoolean(table.options().getOrDefault(FlinkConnectorOptions.SCAN_BOUNDED.key(), "false"));
    }

    /**
     * @throws IllegalArgumentException naming a bad {@code governance.*} key of the table or the
     *     statement's hint
     */
    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        DynamicTableSink paimon = super.createDynamicTableSink(context);
        if (!(paimon instanceof FlinkTableSink)) {
            return paimon;
        }
        Table table = tableOf(SINK_TABLE, paimon);
        if (!(table instanceof FileStoreTable fileStoreTable)) {
            return paimon;
        }
        return new GovernedTableSink(context.getObjectIdentifier(), fileStoreTable, context, defaults.forTable(table.options()));
    }

    /** The table Paimon's source or sink built, from its protected field {@code field}. */
    private static Table tableOf(Field field, Object paimon) {
        try {
            return (Table) field.get(paimon);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read the table of Paimon's " + paimon.getClass().getSimpleName(), e);
        }
    }

    private static Field tableField(Class<?> owner) {
        try {
            Field f = owner.getDeclaredField("table");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("this Paimon's " + owner.getSimpleName() + " keeps its table elsewhere; connector-flink"
                    + " is built for paimon-flink 1.4.2", e);
        }
    }
}
