package io.paimongov.cli;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.tck.TableModes;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.paimon.data.InternalRow;

/**
 * The demo's write through Flink SQL ({@code --provider flink}): an embedded cluster of one task
 * manager whose one slot's managed memory is the budget of each governed operator in it ({@link
 * #governedOperators}; its pages of {@code --page-size}, its
 * temp dir the spill root), the governed catalog on the warehouse, the demo's rows from a
 * generator source of one task (made again there from the {@link DemoRecipe}, so in the order the
 * model makes them, deletes as {@code -D} rows of a changelog of inserts and deletes with the
 * primary key {@code (p, k)}, see {@link #INSERTS_AND_DELETES}), and one {@code INSERT INTO} statement: one governed writer, as the heap demo has one write. Its metrics
 * come from Flink's metric system ({@link FlinkGauges}); {@code --cancel-after-rows} cancels the job
 * once the writer's {@code inputRows} gauge reaches the count (below {@code --rows}, since the job
 * commits after its last row). Whether the statement committed is read from the table's snapshots,
 * not inferred from how the job ended.
 */
final class FlinkDemoWrite {

    /**
     * The input's changelog: inserts and deletes, not an upsert stream. The planner puts a {@code
     * ChangelogNormalize} after an upsert source, which keeps the last row of every key the job has
     * seen and drops a {@code -D} of a key it has not: a delete of a key an earlier run wrote would
     * never reach the table (Paimon's own sink gets the same plan). Inserts and deletes with the
     * primary key declared go to the sink as they are, in the source's order.
     */
    static final ChangelogMode INSERTS_AND_DELETES =
            ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).addContainedKind(RowKind.DELETE).build();

    private FlinkDemoWrite() {}

    static EngineWrite run(DemoSettings s, Path warehouse, Path spillRoot) throws Exception {
        long leakedBefore = FlinkGovernanceProvider.leakedBytes();
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, new MemorySize(s.options().budgetBytes() * governedOperators(s.table())));
        config.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, new MemorySize(s.options().pageSize()));
        config.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        config.set(CoreOptions.TMP_DIRS, spillRoot.toString());
        FlinkGauges.configure(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(config);
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        sql.executeSql("CREATE CATALOG " + SqlEngine.CATALOG + " WITH ('type' = 'paimon-governed', 'warehouse' = "
                + SqlEngine.literal(PaimonPaths.option(warehouse)) + DemoEngines.governanceOptions(s) + ")");

        DemoRecipe recipe = DemoRecipe.of(s, warehouse, true);
        RowTypeInfo type = new RowTypeInfo(new TypeInformation<?>[] {Types.INT, Types.INT, Types.STRING}, new String[] {"p", "k", "v"});
        DataStream<Row> rows = env.fromSource(
                        new DataGeneratorSource<>(new DemoRows(recipe), s.rows(), type), WatermarkStrategy.noWatermarks(), "demo rows")
                .setParallelism(1);
        Schema schema = Schema.newBuilder()
                .column("p", DataTypes.INT().notNull())
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("p", "k")
                .build();
        Table input = s.appendOnly() ? sql.fromDataStream(rows) : sql.fromChangelogStream(rows, schema, INSERTS_AND_DELETES);
        sql.createTemporaryView("demo_input", input);
        Long before = latestSnapshot(warehouse);
        TableResult result = sql.executeSql("INSERT INTO " + SqlEngine.CATALOG + "." + DemoTable.DATABASE + "." + DemoTable.TABLE
                + " SELECT p, k, v FROM demo_input");
        JobClient job = result.getJobClient().orElseThrow();
        String id = job.getJobID().toString();
        // The local cluster stops with its job, so the job's end is read from its result, not its status.
        CompletableFuture<JobExecutionResult> end = job.getJobExecutionResult();
        boolean cancelled = s.cancels() && cancelAt(job, end, id, s.cancelAfterRows());
        try {
            end.get();
            cancelled = false;
        } catch (ExecutionException e) {
            if (!cancelled) {
                throw e;
            }
        }
        // The job commits once, after its last row: a cancel that lands just after that commit still
        // ends the job cancelled, so whether it committed is the table's to say.
        boolean committed = !Objects.equals(before, latestSnapshot(warehouse));
        WriteSummary writes = FlinkGauges.take(id);
        return new EngineWrite(writes.inputRows(), committed, cancelled, writes,
                FlinkGovernanceProvider.leakedBytes() - leakedBefore, EngineWrite.scopeFilesUnder(spillRoot), spillRoot);
    }

    /**
     * The operators of the job that declare managed memory, all with the same weight, so each gets
     * the slot's managed memory divided by this: the writer, and for dynamic buckets the assigner
     * before it ({@code GovernedPaimonSink}). The slot holds this many budgets, so that the writer's
     * share is the budget.
     */
    static int governedOperators(TableModes mode) {
        return mode == TableModes.PK_DYNAMIC ? 2 : 1;
    }

    /** The demo table's latest snapshot id; null before its first commit. */
    private static Long latestSnapshot(Path warehouse) throws Exception {
        return DemoTable.open(warehouse).snapshotManager().latestSnapshotId();
    }

    /** Cancels the job once its writer took {@code rows} rows; false when it ended first. */
    private static boolean cancelAt(JobClient job, CompletableFuture<JobExecutionResult> end, String id, long rows)
            throws Exception {
        while (!end.isDone()) {
            if (FlinkGauges.peek(id, "inputRows") >= rows) {
                try {
                    job.cancel().get();
                } catch (ExecutionException e) {
                    if (!end.isDone()) {
                        throw e;
                    }
                    // The job ended between the look and the cancel.
                    return false;
                }
                return true;
            }
            Thread.sleep(5);
        }
        return false;
    }

    /**
     * The demo's rows in the source's one task: the workload made again from the recipe, row {@code i}
     * for index {@code i} (one split, indexes in order).
     */
    static final class DemoRows implements GeneratorFunction<Long, Row> {
        private static final long serialVersionUID = 1L;

        private final DemoRecipe recipe;
        private transient DemoWorkload workload;

        DemoRows(DemoRecipe recipe) {
            this.recipe = recipe;
        }

        @Override
        public void open(SourceReaderContext context) throws Exception {
            workload = recipe.workloadInTask();
        }

        @Override
        public Row map(Long index) {
            InternalRow row = workload.next();
            Object[] values = DemoRecipe.values(row);
            return Row.ofKind(row.getRowKind() == org.apache.paimon.types.RowKind.DELETE ? RowKind.DELETE : RowKind.INSERT,
                    values);
        }
    }
}
