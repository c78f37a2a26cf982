package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.connector.flink.sink.StreamingChecks.Resources;
import io.paimongov.connector.flink.sink.StreamingJob.Faults;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An unbounded checkpointed job into a deletion-vector primary-key table with
 * {@code compaction.task-threads} 1, 2 and -1, through a task failure right after a commit. A batch
 * read of such a table skips level 0 and applies the deletion vectors, so it shows a change only
 * once a governed compaction moved it up and marked the rows it replaces; once the job read all
 * changes, the batch read must come to equal the model (the last change of every key, from the
 * input alone), with no committed file left at level 0 one checkpoint later. Exactly once and
 * nothing left behind as in {@link StreamingFailoverTest}. (Whether a checkpoint waits for the
 * compaction, Paimon's {@code lookup-wait}, is checked without a cluster: LookupWaitTest,
 * SinkHarnessWriteTest.)
 */
class StreamingDeletionVectorTest {

    private static final long N = 8_000;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = StreamingFailoverTest.cluster();

    @TempDir Path dir;

    @BeforeEach
    void resetFaults() {
        Faults.reset();
    }

    @ParameterizedTest(name = "task-threads {0}")
    @ValueSource(strings = {"1", "2", "-1"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDeletionVectorTableHoldsTheLastChangeOfEveryKeyAfterATaskFailure(String threads, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of(
                "bucket", "4",
                "file.format", "parquet",
                "deletion-vectors.enabled", "true"), true);
        Map<List<Integer>, String> model = StreamingJob.lastChangePerKey(N);
        Path flinkTmp = StreamingChecks.flinkTmp(cluster);
        Resources before = Resources.sample(flinkTmp);
        Faults.table = table;
        Faults.FAIL_AT.set(N / 2);

        StreamExecutionEnvironment env = StreamingJob.environment(2, 1, null);
        StreamingJob.build(env, table, N, true, Map.of("governance.compaction.task-threads", threads));
        JobClient client = env.executeAsync("streaming governed write into a deletion-vector table");
        try {
            StreamingChecks.awaitTable(client, table, "the batch read to equal the model", () -> TestTables.read(table).equals(model));
            StreamingChecks.awaitCheckpoints(client, 1);
        } finally {
            StreamingChecks.cancel(client);
        }

        assertThat(Faults.INJECTED.get()).as("injected faults").isEqualTo(1);
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(levelZeroFiles(table)).as("committed files at level 0").isZero();
        StreamingChecks.assertExactlyOnce(table, StreamingChecks.completedCheckpoints(cluster, client.getJobID()));
        StreamingChecks.assertReleased(before, flinkTmp);
    }

    /** Files at level 0 in the latest snapshot, from Paimon's own plan without the level filter. */
    private static long levelZeroFiles(FileStoreTable table) {
        return table.newSnapshotReader().read().dataSplits().stream()
                .map(DataSplit::dataFiles)
                .flatMap(List::stream)
                .filter(f -> f.level() == 0)
                .count();
    }
}
