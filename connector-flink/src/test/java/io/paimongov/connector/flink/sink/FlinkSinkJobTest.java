package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.flink.JobGauges;
import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkMetricGroupReporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drop-in sink in a real Flink job: a MiniCluster with one task manager of 2 slots and 16 MiB of
 * managed memory (8 MiB per slot), so a writer's share is small enough to spill. What the writes
 * leave in the task managers' temp dirs (the extension's own folder) is checked.
 */
class FlinkSinkJobTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    () -> new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(clusterConfig())
                            .build());

    @TempDir Path dir;

    /** The task managers' temp dirs (the extension sets its own, whatever the configuration says). */
    private Path flinkTmp;

    private static Configuration clusterConfig() {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        return REPORTER.addToConfiguration(config);
    }

    @BeforeEach
    void findFlinkTmp(@InjectMiniCluster MiniCluster cluster) {
        flinkTmp = StreamingChecks.flinkTmp(cluster);
    }

    @Test
    void aBoundedJobWritesThePrimaryKeyTableOfItsInputSpillingInManagedMemory() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        Workload w = Workload.random(7, 120_000, 30_000, 2, 64);
        List<Change> changes = w.rows().stream().map(Change::of).toList();
        long leaks = FlinkGovernanceProvider.leaksDetected();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        GovernedPaimonSink.write(env.fromData(changes), Change::toRow, table, Map.of());
        JobID job = env.execute("bounded governed write").getJobID();

        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        Map<String, Long> inputRows = gauges(job, "inputRows");
        assertThat(inputRows).hasSize(2);
        assertThat(inputRows.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(changes.size());
        assertThat(gauges(job, "spillCount").values()).as("every writer spilled").allMatch(n -> n > 0);
        Map<String, Long> peaks = gauges(job, "peakReservedBytes");
        assertThat(peaks.values()).allMatch(peak -> peak > 0 && peak <= 8L << 20);
        assertEverythingBack(job, leaks);
    }

    @Test
    void aJobCancelledMidWriteLeavesNoSnapshotNoSpillFileAndGivesTheManagedMemoryBack() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        long leaks = FlinkGovernanceProvider.leaksDetected();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        GovernedPaimonSink.write(
                env.fromSequence(0, Long.MAX_VALUE).map(FlinkSinkJobTest::change).returns(TypeInformation.of(Change.class)),
                Change::toRow,
                table,
                Map.of());
        JobClient client = env.executeAsync("endless governed write");
        JobID job = client.getJobID();
        try {
            awaitSpill(job);
            assertThat(scopesLeft()).as("the running writers' spill scopes").isNotEmpty();
        } finally {
            client.cancel().get();
            while (!client.getJobStatus().get().isGloballyTerminalState()) {
                Thread.sleep(50);
            }
        }

        assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
        assertThat(gauges(job, "spillFilesLeft").values()).containsOnly(0L);
        assertEverythingBack(job, leaks);
    }

    /**
     * A task fails mid-write once and the job restarts (fixed-delay, one attempt): the failed
     * attempt's writers (the failing one and the one Flink cancels with it) give their managed
     * memory back and delete their spill scopes, and the restarted attempt writes the whole table.
     */
    @Test
    void aJobThatFailsOnceAndRestartsWritesTheTableAndLeavesNothingOfTheFailedAttempt() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        Workload w = Workload.random(11, 120_000, 30_000, 2, 64);
        List<Change> changes = w.rows().stream().map(Change::of).toList();
        long leaks = FlinkGovernanceProvider.leaksDetected();
        FailOnce.FAILURES.set(0);

        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restart);
        env.setParallelism(2);
        GovernedPaimonSink.write(
                // Parallelism 1, chained to the source: each key's changes reach its writer in input order.
                env.fromData(changes).map(new FailOnce(55_000)).returns(TypeInformation.of(Change.class)).setParallelism(1),
                Change::toRow,
                table,
                Map.of());
        JobID job = env.execute("governed write that fails once").getJobID();

        assertThat(FailOnce.FAILURES.get()).as("injected failures").isEqualTo(1);
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertEverythingBack(job, leaks);
    }

    /** Passes changes on, and throws once: in the first attempt, at the {@code at}-th change. */
    static final class FailOnce extends RichMapFunction<Change, Change> {
        static final AtomicInteger FAILURES = new AtomicInteger();
        private final int at;
        private int seen;

        FailOnce(int at) {
            this.at = at;
        }

        @Override
        public Change map(Change change) {
            if (++seen == at && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("injected: the task failed mid-write");
            }
            return change;
        }
    }

    @Test
    void aWriterWithoutAManagedMemoryDeclarationFailsSayingWhatToAdd() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 1, "avro");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.fromData(new Change(0, 1, "a", false))
                .transform("undeclared writer", TypeInformation.of(Committable.class),
                        new GovernedWriterOperator<>(table, Map.of(), GovernedWriterOperator.Feeder.rows(Change::toRow), "u", null))
                .sinkTo(new DiscardingSink<>());

        assertThatThrownBy(() -> env.execute("undeclared"))
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no managed memory")
                .hasMessageContaining("declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight)");
    }

    private static Change change(long i) {
        Random random = new Random(i);
        return new Change((int) (i % 2), random.nextInt(50_000), TestTables.value(random, Integer.toString((int) i), 64), false);
    }

    /** Every writer of {@code job} released its reservations, no page leaked since {@code leaks}, no spill scope is left. */
    private void assertEverythingBack(JobID job, long leaks) throws IOException {
        assertThat(gauges(job, "reservedBytes").values()).containsOnly(0L);
        assertThat(FlinkGovernanceProvider.leaksDetected()).isEqualTo(leaks);
        assertThat(scopesLeft()).isEmpty();
    }

    /** Waits until every writer of {@code job} spilled at least once, so the cancel hits a write with spill files. */
    private static void awaitSpill(JobID job) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, Long> spills = gauges(job, "spillCount");
            if (spills.size() == 2 && spills.values().stream().allMatch(n -> n > 0)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the writers did not spill within 60 s: " + gauges(job, "spillCount"));
    }

    private static Map<String, Long> gauges(JobID job, String name) {
        return JobGauges.of(REPORTER, job, name);
    }

    private List<Path> scopesLeft() throws IOException {
        return JobGauges.scopesLeft(flinkTmp);
    }
}
