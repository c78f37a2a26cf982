package io.paimongov.connector.flink.sql;

import java.lang.reflect.Field;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.paimon.flink.FlinkTableFactory;
import org.apache.paimon.flink.sink.FlinkTableSink;
import org.apache.paimon.flink.sink.FlinkTableSinkBase;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;

/**
 * Tables of a {@link GovernedFlinkCatalog}, and tables declared outside a catalog with {@code
 * 'connector' = 'paimon-governed'} and {@code 'path'} (as Paimon's {@code 'connector' = 'paimon'}):
 * reads, lookups and the table's definition are Paimon's own ({@link FlinkTableFactory}); writes of
 * Paimon data tables go through governed writes ({@link GovernedTableSink}). Format tables (plain
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

    private static final Field TABLE = tableField();

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
     * @throws IllegalArgumentException naming a bad {@code governance.*} key of the table or the
     *     statement's hint
     */
    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        DynamicTableSink paimon = super.createDynamicTableSink(context);
        if (!(paimon instanceof FlinkTableSink)) {
            return paimon;
        }
        Table table = tableOf((FlinkTableSink) paimon);
        if (!(table instanceof FileStoreTable fileStoreTable)) {
            return paimon;
        }
        return new GovernedTableSink(context.getObjectIdentifier(), fileStoreTable, context, defaults.forTable(table.options()));
    }

    private static Table tableOf(FlinkTableSink sink) {
        try {
            return (Table) TABLE.get(sink);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read the table of Paimon's FlinkTableSink", e);
        }
    }

    private static Field tableField() {
        try {
            Field f = FlinkTableSinkBase.class.getDeclaredField("table");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("this Paimon's FlinkTableSinkBase keeps its table elsewhere; connector-flink"
                    + " is built for paimon-flink 1.4.2", e);
        }
    }
}
