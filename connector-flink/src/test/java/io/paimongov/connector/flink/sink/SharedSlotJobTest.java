package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkMetricGroupReporter;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many governed sinks in one slot share its managed memory (issue 37): a MiniCluster with one task
 * manager of one slot, and one job of {@link #SINKS} governed DataStream sinks into as many
 * primary-key tables, every operator in the slot. One source emits the rows; the first sink gets
 * half of them, the others share the rest, all interleaved. Each writer's share is the slot's
 * managed memory over the sinks (its declared weight); the heavy sink's rows need several shares,
 * and the light sinks' rows most of theirs, so the heavy sink borrows while the others have room
 * and gives back as they fill.
 *
 * <p>Judged by the input (each table against its rows in order), by Flink (the job finishes; the
 * slot's {@link MemoryManager}, sampled on the source's thread at every row, never hands out more
 * than its size) and by the writers' gauges as Flink's {@link InMemoryReporter} received them.
 * Sizes from system properties: {@code governance.sharing.sinks} (16), {@code
 * governance.sharing.share} (per sink, 2m), {@code governance.sharing.rows} (120000), {@code
 * governance.sharing.policy} ({@code fair}; {@code none} runs the same job without sharing, for a
 * comparison, and checks only what holds without it).
 */
class SharedSlotJobTest {

    private static final Logger LOG = LoggerFactory.getLogger(SharedSlotJobTest.class);

    static final int SINKS = Integer.getInteger("governance.sharing.sinks", 16);
    static final long SHARE = Sizes.parse("governance.sharing.share", System.getProperty("governance.sharing.share", "2m"));
    static final int ROWS = Integer.getInteger("governance.sharing.rows", 120_000);
    static final String POLICY = System.getProperty("governance.sharing.policy", "fair");
    private static final int KEYS = 50_000;
    private static final int VALUE_BYTES = 256;

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    () -> new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(1)
                            .setConfiguration(clusterConfig())
                            .build());

    @TempDir Path dir;

    private static Configuration clusterConfig() {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, new MemorySize(SINKS * SHARE));
        return REPORTER.addToConfiguration(config);
    }

    /** One row for one table: what the source emits. A Flink POJO. */
    public static class TableRow {
        public int table;
        public int k;
        public String v;
        public boolean delete;

        public TableRow() {}

        /**
         * Row {@code i} of the input: even rows go to table 0, odd ones round-robin to the others;
         * about one in ten deletes its key. The same {@code i} always gives the same row.
         */
        static TableRow of(long i) {
            Random random = new Random(i);
            TableRow row = new TableRow();
            row.table = i % 2 == 0 ? 0 : 1 + (int) ((i / 2) % (SINKS - 1));
            row.k = random.nextInt(KEYS);
            row.delete = random.nextInt(10) == 0;
            row.v = row.delete ? null : TestTables.value(random, Long.toString(i), VALUE_BYTES);
            return row;
        }

        InternalRow toRow() {
            return delete ? GenericRow.ofKind(RowKind.DELETE, 0, k, null) : GenericRow.of(0, k, BinaryString.fromString(v));
        }
    }

    /**
     * Reads, for every row passing through, what the slot's memory manager has handed out, from
     * Flink: its size less its available memory. Runs on the source's thread, in the writers' slot.
     */
    static final class SlotSampler extends AbstractStreamOperator<TableRow> implements OneInputStreamOperator<TableRow, TableRow> {
        static final AtomicLong MOST_USED = new AtomicLong(-1);
        static final AtomicLong SIZE = new AtomicLong(-1);
        private transient MemoryManager manager;

        @Override
        public void open() throws Exception {
            super.open();
            manager = getContainingTask().getEnvironment().getMemoryManager();
            SIZE.set(manager.getMemorySize());
        }

        @Override
        public void processElement(StreamRecord<TableRow> element) {
            MOST_USED.accumulateAndGet(manager.getMemorySize() - manager.availableMemory(), Math::max);
            output.collect(element);
        }
    }

    @Test
    void sinksInOneSlotShareItsManagedMemoryAndAllFinish() throws Exception {
        List<FileStoreTable> tables = new ArrayList<>();
        List<Map<List<Integer>, String>> expected = new ArrayList<>();
        for (int t = 0; t < SINKS; t++) {
            tables.add(TestTables.primaryKeyTable(dir.resolve("wh"), String.format("t%02d", t), 1, "avro"));
            expected.add(TestTables.emptyModel());
        }
        long[] rowsOf = new long[SINKS];
        for (long i = 0; i < ROWS; i++) {
            TableRow row = TableRow.of(i);
            TestTables.apply(expected.get(row.table), row.toRow());
            rowsOf[row.table]++;
        }
        long leaks = FlinkGovernanceProvider.leaksDetected();
        SlotSampler.MOST_USED.set(-1);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<TableRow> rows = env.fromSequence(0, ROWS - 1)
                .map(TableRow::of)
                .returns(TypeInformation.of(TableRow.class))
                .transform("slot memory sampler", TypeInformation.of(TableRow.class), new SlotSampler());
        Map<String, String> options = Map.of(GovernanceOptions.MEMORY_SHARING, POLICY);
        for (int t = 0; t < SINKS; t++) {
            int table = t;
            GovernedPaimonSink.write(rows.filter(r -> r.table == table).name("rows of " + tables.get(t).name()),
                    TableRow::toRow, tables.get(t), options);
        }
        JobID job = env.execute(SINKS + " sinks in one slot").getJobID();

        for (int t = 0; t < SINKS; t++) {
            assertThat(TestTables.read(tables.get(t))).as(tables.get(t).name()).isEqualTo(expected.get(t));
        }
        Map<String, Map<String, Long>> writers = writerGauges(job);
        log(writers);
        assertThat(writers).hasSize(SINKS);
        assertThat(SlotSampler.SIZE.get()).isEqualTo(SINKS * SHARE);
        assertThat(SlotSampler.MOST_USED.get()).as("the slot's memory manager, as Flink counts it")
                .isBetween(1L, SlotSampler.SIZE.get());
        for (int t = 0; t < SINKS; t++) {
            Map<String, Long> g = writers.get(tables.get(t).name());
            assertThat(g.get("inputRows")).as("every sink took all its rows").isEqualTo(rowsOf[t]);
            assertThat(g.get("resourceExhaustedCount")).as("no sink was refused its share").isZero();
            assertThat(g.get("shareBytes")).isEqualTo(SHARE);
            assertThat(g.get("reservedBytes")).as("everything given back").isZero();
        }
        Map<String, Long> heavy = writers.get(tables.get(0).name());
        if (POLICY.equals("fair")) {
            assertThat(heavy.get("peakBorrowedBytes")).as("the heavy sink borrowed").isPositive();
            assertThat(heavy.get("peakReservedBytes")).isGreaterThan(SHARE);
            assertThat(heavy.get("reclaimedFromCount")).as("the light sinks took their shares back").isPositive();
            long takenBack = writers.values().stream().mapToLong(g -> g.get("reclaimedByBytes")).sum();
            long givenBack = writers.values().stream().mapToLong(g -> g.get("reclaimedFromBytes")).sum();
            assertThat(takenBack).isPositive().isEqualTo(givenBack);
        } else {
            assertThat(writers.values()).allSatisfy(g -> {
                assertThat(g.get("peakBorrowedBytes")).isZero();
                assertThat(g.get("peakReservedBytes")).isLessThanOrEqualTo(SHARE);
            });
        }
        assertThat(FlinkGovernanceProvider.leaksDetected()).isEqualTo(leaks);
    }

    @Test
    void aBadSharingPolicyIsRefusedWhenTheSinkIsAddedNamingTheKey() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 1, "avro");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<TableRow> rows = env.fromData(TableRow.of(0));

        assertThatThrownBy(() -> GovernedPaimonSink.write(rows, TableRow::toRow, table, Map.of(GovernanceOptions.MEMORY_SHARING, "fifo")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.memory.sharing' = 'fifo' must be 'fair' or 'none'");
    }

    @Test
    void aBudgetAboveTheOperatorsShareIsRefusedAlsoWhenTheWriterMayBorrow() {
        assertThatThrownBy(() -> SlotMemory.checkBudget(SHARE + 1, SHARE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.memory.budget' = " + (SHARE + 1) + " bytes is larger than the managed memory Flink gives"
                        + " this write (its operator's share of the slot): " + SHARE + " bytes; lower 'governance.memory.budget'"
                        + " or give the task managers more managed memory (taskmanager.memory.managed.size) or the writer a"
                        + " larger share (governance.flink.managed-memory-weight)");
        SlotMemory.checkBudget(SHARE, SHARE);
    }

    /** Each writer's gauges of {@code job} as the reporter received them, by table name. */
    private static Map<String, Map<String, Long>> writerGauges(JobID job) {
        Map<String, Map<String, Long>> writers = new TreeMap<>();
        for (Map.Entry<MetricGroup, Map<String, Metric>> group : REPORTER.getMetricsByGroup().entrySet()) {
            Map<String, String> variables = group.getKey().getAllVariables();
            String operator = variables.get("<operator_name>");
            if (!job.toString().equals(variables.get("<job_id>")) || operator == null || !operator.startsWith("paimon-gov writer ")
                    || !group.getKey().getMetricIdentifier("x").endsWith("." + FlinkMetricGroupReporter.GROUP + ".x")) {
                continue;
            }
            Map<String, Long> gauges = new TreeMap<>();
            group.getValue().forEach((name, metric) -> {
                if (metric instanceof Gauge<?> gauge && gauge.getValue() instanceof Number n) {
                    gauges.put(name, n.longValue());
                }
            });
            writers.put(operator.substring("paimon-gov writer ".length()), gauges);
        }
        return writers;
    }

    private static void log(Map<String, Map<String, Long>> writers) {
        writers.forEach((table, g) -> LOG.info("{} {}: rows {}, spills {}, spill bytes {}, peak reserved {}, peak borrowed {},"
                        + " reclaimed from {} ({} bytes), reclaimed by {} ({} bytes)", POLICY, table, g.get("inputRows"),
                g.get("spillCount"), g.get("spillBytes"), g.get("peakReservedBytes"), g.get("peakBorrowedBytes"),
                g.get("reclaimedFromCount"), g.get("reclaimedFromBytes"), g.get("reclaimedByCount"), g.get("reclaimedByBytes")));
        LOG.info("{}: the slot's memory manager handed out at most {} of {} bytes", POLICY, SlotSampler.MOST_USED.get(),
                SlotSampler.SIZE.get());
    }
}
