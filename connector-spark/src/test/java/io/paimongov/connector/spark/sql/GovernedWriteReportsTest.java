package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.spark.GovernedWriteReport;
import io.paimongov.connector.spark.GovernedWriteReports;
import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.connector.spark.SparkLines;
import io.paimongov.spark.SparkWriteAccumulators.Field;
import io.paimongov.spark.SparkWriteAccumulators.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SQLPlanMetric;
import org.apache.spark.sql.execution.ui.SparkPlanGraphNode;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code paimonGovernance.*} accumulators of the catalog's writes, as {@link
 * GovernedWriteReports} collects them from Spark's task-end events and as the SQL tab shows them,
 * against sources that do not go through them: the statement's input (rows), Spark's own task
 * metrics of the write tasks ({@code diskBytesSpilled}, {@code peakExecutionMemory}, the number of
 * write tasks and of failed attempts, from a listener of the test's own) and the files Paimon's
 * snapshots added. A fixed-bucket write that spills, a dynamic-bucket write (a job through
 * assigners, whose tasks must not count as writes), a write whose task fails once and runs again
 * (each attempt's write counts once), and a streaming micro-batch. Sizes: {@code
 * governance.test.spark.report-rows} rows (default 60,000) of about 100 bytes for the spilling
 * write.
 */
class GovernedWriteReportsTest {

    private static final long BUDGET = 2L << 20;
    private static final int ROWS = Integer.getInteger("governance.test.spark.report-rows", 60_000);
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The id at which the first attempt of partition 0 fails: the rows before it were written. */
    private static final int FAIL_AT = 1_000;
    private static final AtomicInteger INJECTED = new AtomicInteger();
    private static final WriteTasks TASKS = new WriteTasks();

    @TempDir static Path warehouse;
    @TempDir Path dir;
    private static SparkSession spark;
    private static GovernedWriteReports reports;

    @BeforeAll
    static void catalog() {
        // A task may fail once and run again.
        spark = LocalSpark.session(LocalSpark.LOCAL_2_RETRY);
        reports = GovernedWriteReports.register(spark);
        spark.sparkContext().addSparkListener(TASKS);
        Tables.register(spark, "rep", warehouse, Map.of("governance.memory.budget", Long.toString(BUDGET),
                "governance.memory.page-size", "16k"));
        spark.sql("CREATE DATABASE IF NOT EXISTS rep.db");
        spark.udf().register("fail_at", (UDF1<Long, Long>) GovernedWriteReportsTest::failAt, DataTypes.LongType);
    }

    @AfterAll
    static void removeListeners() {
        reports.close();
        spark.sparkContext().removeSparkListener(TASKS);
    }

    @Test
    void aSpillingFixedBucketInsertReportsWhatSparkAndPaimonSaw() throws Exception {
        spark.sql("CREATE TABLE rep.db.fixed (k INT, v STRING, d STRING) PARTITIONED BY (d)"
                + " TBLPROPERTIES ('primary-key' = 'k,d', 'bucket' = '2', 'file.format' = 'parquet')");
        spark.sparkContext().setJobGroup("report-fixed", "the fixed-bucket insert", false);
        Run run;
        try {
            run = run("fixed", "INSERT INTO rep.db.fixed SELECT CAST(id AS INT), concat('v-', id, '-', repeat('x', 80)),"
                    + " concat('p', id % 3) FROM range(0, " + ROWS + ")");
        } finally {
            spark.sparkContext().clearJobGroup();
        }
        GovernedWriteReport report = run.report;
        System.err.printf("spilling insert of %d rows, budget %d: %s; Spark's diskBytesSpilled of the write tasks %d,"
                        + " their largest peakExecutionMemory %d; Paimon's snapshots added %d files, %d bytes%n",
                ROWS, BUDGET, report.asMap(), run.tasks.diskBytesSpilled(), run.tasks.maxPeakExecutionMemory(), run.added.count(),
                run.added.bytes());

        assertThat(report.writes()).as("writes: the write tasks (2 channels)").isEqualTo(run.tasks.count()).isEqualTo(2);
        assertThat(report.tasks()).isEqualTo(2);
        assertThat(report.failedTasks()).isZero();
        assertThat(report.inputRows()).as("rows inserted").isEqualTo(ROWS);
        assertThat(report.spillCount()).as("spill runs").isPositive();
        assertThat(report.spillFiles()).as("spill files").isPositive();
        assertThat(report.spillBytes()).as("spill bytes = Spark's diskBytesSpilled of the write tasks")
                .isPositive().isEqualTo(run.tasks.diskBytesSpilled());
        assertThat(report.peakReservedBytes()).as("the largest peak = Spark's largest peakExecutionMemory of a write task")
                .isPositive().isLessThanOrEqualTo(BUDGET).isEqualTo(run.tasks.maxPeakExecutionMemory());
        assertThat(report.budgetBytes()).isEqualTo(BUDGET);
        assertCleanAndCommitted(run);
        assertThat(reports.jobGroup("report-fixed", WAIT)).as("the job group's report").isEqualTo(report);
    }

    @Test
    void aDynamicBucketInsertReportsItsWriteTasksNotItsAssigners() throws Exception {
        spark.sql("CREATE TABLE rep.db.dynamic (k INT, v STRING, d STRING) PARTITIONED BY (d)"
                + " TBLPROPERTIES ('primary-key' = 'k,d', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '500')");
        int rows = 5_000;
        Run run = run("dynamic", "INSERT INTO rep.db.dynamic SELECT CAST(id AS INT), concat('v-', id), concat('p', id % 3)"
                + " FROM range(0, " + rows + ")");

        // The job's result tasks write; the assigners run in the stage before them.
        assertThat(run.report.writes()).as("writes: the write tasks").isEqualTo(run.tasks.count()).isEqualTo(2);
        assertThat(run.report.inputRows()).as("rows inserted, each written once").isEqualTo(rows);
        assertThat(run.report.failedTasks()).isZero();
        assertCleanAndCommitted(run);
    }

    @Test
    void aTaskThatFailsOnceReportsBothAttemptsWritesOnceEach() throws Exception {
        spark.sql("CREATE TABLE rep.db.log (k BIGINT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES ('bucket' = '-1')");
        int rows = 20_000;
        INJECTED.set(0);
        // An append table is written where its rows are: the UDF runs in the write task, before its row is written.
        Run run = run("log", "INSERT INTO rep.db.log SELECT fail_at(id), concat('v-', id), concat('p', id % 3)"
                + " FROM range(0, " + rows + ")");

        assertThat(INJECTED.get()).as("injected failures").isEqualTo(1);
        assertThat(run.tasks.count()).as("write task attempts").isEqualTo(3);
        assertThat(run.tasks.failed()).isEqualTo(1);
        assertThat(run.report.writes()).as("one write per attempt").isEqualTo(3);
        assertThat(run.report.tasks()).isEqualTo(3);
        assertThat(run.report.failedTasks()).isEqualTo(1);
        assertThat(run.report.inputRows()).as("the rows, and the failed attempt's rows before id %d", FAIL_AT)
                .isEqualTo(rows + FAIL_AT);
        assertCleanAndCommitted(run);
        assertThat(Tables.query(spark, "SELECT count(*) FROM rep.db.log")).containsExactly(Integer.toString(rows));
    }

    @Test
    void aStreamingMicroBatchReports() throws Exception {
        spark.sql("CREATE TABLE rep.db.stream (k INT, v STRING, d STRING) PARTITIONED BY (d)"
                + " TBLPROPERTIES ('primary-key' = 'k,d', 'bucket' = '2')");
        int rows = 3_000;
        Path input = Files.createDirectories(dir.resolve("input"));
        StringBuilder json = new StringBuilder();
        for (int k = 0; k < rows; k++) {
            json.append("{\"k\":").append(k).append(",\"v\":\"v-").append(k).append("\",\"d\":\"p").append(k % 3).append("\"}\n");
        }
        Files.writeString(input.resolve("rows.json"), json);
        String[] runId = new String[1];
        Run run = run("stream", () -> {
            StreamingQuery query = spark.readStream().schema("k INT, v STRING, d STRING").json(input.toString())
                    .writeStream()
                    .option("checkpointLocation", dir.resolve("checkpoint").toString())
                    .trigger(Trigger.AvailableNow())
                    .toTable("rep.db.stream");
            runId[0] = query.runId().toString();
            try {
                assertThat(query.awaitTermination(120_000)).as("the query ended within 120 s").isTrue();
            } finally {
                query.stop();
            }
        });

        assertThat(run.report.jobs()).as("jobs of the micro-batch").isNotEmpty();
        assertThat(run.report.writes()).as("writes: the micro-batch's write tasks").isEqualTo(run.tasks.count()).isEqualTo(2);
        assertThat(run.report.inputRows()).isEqualTo(rows);
        assertThat(run.report.failedTasks()).isZero();
        assertThat(run.report.reservedBytes()).isZero();
        assertThat(run.report.spillFilesLeft()).isZero();
        assertThat(new long[] {run.report.outputFiles(), run.report.outputBytes()})
                .as("output files and bytes = what Paimon's snapshot added")
                .containsExactly(run.added.count(), run.added.bytes());
        // Spark runs a query's micro-batches in the job group of its run id.
        assertThat(reports.jobGroup(runId[0], WAIT)).as("the query's job group").isEqualTo(run.report);
        assertThat(run.sqlTab).as("a micro-batch's write node shows no governance metrics (Spark would show zeros)").isEmpty();
    }

    /** Every write gave everything back, and its output is what Paimon committed; the SQL tab shows the report. */
    private static void assertCleanAndCommitted(Run run) {
        GovernedWriteReport report = run.report;
        assertThat(report.reservedBytes()).as("bytes still accounted after the writes closed").isZero();
        assertThat(report.spillFilesLeft()).as("spill files left after the writes closed").isZero();
        assertThat(report.cleanupFailures()).isZero();
        assertThat(report.resourceExhaustedCount()).isZero();
        assertThat(report.outputFiles()).as("output files = data files Paimon's snapshots added").isPositive()
                .isEqualTo(run.added.count());
        assertThat(report.outputBytes()).as("output bytes = their sizes").isEqualTo(run.added.bytes());
        Map<String, String> expected = new TreeMap<>();
        for (Field field : Field.values()) {
            String name = field.accumulatorName() + (field.kind() == Kind.MAX ? " (max)" : "");
            expected.put(name, Long.toString(report.asMap().get(field.field())));
        }
        if (SparkLines.DRIVER_METRICS) { // Spark 3.5 never asks a write for them
            assertThat(run.sqlTab).as("the write node's metrics in the SQL tab").isEqualTo(expected);
        }
    }

    /** What one statement (or query) did, seen from the report, the test's own task listener, Paimon and the SQL tab. */
    private record Run(GovernedWriteReport report, WriteTasks.Summary tasks, Tables.Files added, Map<String, String> sqlTab) {}

    private interface Body {
        void run() throws Exception;
    }

    private static Run run(String table, String sql) throws Exception {
        return run(table, () -> spark.sql(sql));
    }

    private static Run run(String table, Body body) throws Exception {
        FileStoreTable before = Tables.paimon(warehouse, "db", table);
        Long lastSnapshot = before.snapshotManager().latestSnapshotId();
        long lastExecution = lastExecution();
        GovernedWriteReports.Mark mark = reports.mark(WAIT);
        TASKS.reset();
        body.run();
        GovernedWriteReport report = reports.since(mark, WAIT);
        return new Run(report, TASKS.summary(), Tables.added(Tables.paimon(warehouse, "db", table), lastSnapshot),
                sqlTabMetrics(lastExecution));
    }

    private static SQLAppStatusStore sqlStatus() {
        return SparkLines.statusStore(spark);
    }

    private static long lastExecution() {
        long last = -1;
        for (scala.collection.Iterator<SQLExecutionUIData> e = sqlStatus().executionsList().iterator(); e.hasNext(); ) {
            last = Math.max(last, e.next().executionId());
        }
        return last;
    }

    /** The {@code paimonGovernance.*} metrics of the SQL executions after {@code afterExecution}, as the SQL tab shows them. */
    private static Map<String, String> sqlTabMetrics(long afterExecution) {
        Map<String, String> shown = new TreeMap<>();
        SQLAppStatusStore store = sqlStatus();
        // Iterated, not converted: the collection converters differ between Scala 2.12 and 2.13.
        for (scala.collection.Iterator<SQLExecutionUIData> executions = store.executionsList().iterator(); executions.hasNext(); ) {
            SQLExecutionUIData e = executions.next();
            if (e.executionId() <= afterExecution) {
                continue;
            }
            scala.collection.Map<Object, String> values = store.executionMetrics(e.executionId());
            for (scala.collection.Iterator<SparkPlanGraphNode> nodes = store.planGraph(e.executionId()).allNodes().iterator(); nodes.hasNext(); ) {
                for (scala.collection.Iterator<SQLPlanMetric> metrics = nodes.next().metrics().iterator(); metrics.hasNext(); ) {
                    SQLPlanMetric metric = metrics.next();
                    if (metric.name().startsWith("paimonGovernance.") && values.contains(metric.accumulatorId())) {
                        shown.put(metric.name(), values.apply(metric.accumulatorId()));
                    }
                }
            }
        }
        return shown;
    }

    /** The UDF of the failing write: the first attempt of partition 0 fails at id {@value #FAIL_AT}. */
    private static Long failAt(Long id) {
        TaskContext task = TaskContext.get();
        if (id == FAIL_AT && task.partitionId() == 0 && task.attemptNumber() == 0 && INJECTED.compareAndSet(0, 1)) {
            throw new IllegalStateException("injected: the write task fails at id " + id);
        }
        return id;
    }

    /**
     * Spark's own view of the write tasks: every result task that ended (a write job's last stage
     * writes), with its task metrics as {@code SparkListenerTaskEnd} carries them.
     */
    private static final class WriteTasks extends SparkListener {
        private final List<SparkListenerTaskEnd> ends = new ArrayList<>();

        record Summary(long count, long failed, long diskBytesSpilled, long maxPeakExecutionMemory) {}

        @Override
        public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
            if ("ResultTask".equals(end.taskType())) {
                ends.add(end);
            }
        }

        synchronized void reset() {
            ends.clear();
        }

        synchronized Summary summary() {
            long failed = 0;
            long disk = 0;
            long peak = 0;
            for (SparkListenerTaskEnd end : ends) {
                failed += end.taskInfo().successful() ? 0 : 1;
                if (end.taskMetrics() != null) {
                    disk += end.taskMetrics().diskBytesSpilled();
                    peak = Math.max(peak, end.taskMetrics().peakExecutionMemory());
                }
            }
            return new Summary(ends.size(), failed, disk, peak);
        }
    }
}
