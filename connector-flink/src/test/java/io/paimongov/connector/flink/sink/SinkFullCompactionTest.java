package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Paimon's {@code full-compaction.delta-commits} in the governed sink: the writer compacts its open
 * buckets fully at every checkpoint whose id is a multiple of it. Writer and committer in Flink's
 * harnesses on a deletion-vector table of two buckets, two checkpoints, the second updating a tenth
 * of the first's keys.
 * Expected values: the test's fold of its rows, and Paimon's own file metadata (a fully compacted
 * bucket is one run at the highest level; without the option the second checkpoint's files stop a
 * level below it, where Paimon's lookup compaction puts new level-0 files above an existing run).
 */
class SinkFullCompactionTest {

    @TempDir Path dir;

    @ParameterizedTest(name = "full-compaction.delta-commits set: {0}")
    @ValueSource(booleans = {true, false})
    void theDeltaCommitsCheckpointCompactsTheOpenBucketsFully(boolean deltaCommits) throws Exception {
        Map<String, String> options = new HashMap<>(Map.of("bucket", "2", "deletion-vectors.enabled", "true"));
        if (deltaCommits) {
            options.put("full-compaction.delta-commits", "2");
        }
        FileStoreTable table = TestTables.createTable(dir, "dv", options, true);
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (OneInputStreamOperatorTestHarness<InternalRow, Committable> writer = writer(table);
                OneInputStreamOperatorTestHarness<Committable, Void> committer =
                        new OneInputStreamOperatorTestHarness<>(new GovernedCommitterOperator(table, "job-user", false, null))) {
            writer.open();
            committer.open();
            for (long checkpoint = 1; checkpoint <= 2; checkpoint++) {
                // Checkpoint 2 updates a tenth of the keys: too little for Paimon to merge it with the run below.
                for (int k = 0; k < (checkpoint == 1 ? 100 : 10); k++) {
                    InternalRow row = GenericRow.of(1, k, BinaryString.fromString("c" + checkpoint + "-" + k));
                    TestTables.apply(model, row);
                    writer.processElement(new StreamRecord<>(row));
                }
                writer.prepareSnapshotPreBarrier(checkpoint);
                for (Committable c : writer.extractOutputValues()) {
                    committer.processElement(new StreamRecord<>(c));
                }
                writer.getOutput().clear();
                committer.snapshot(checkpoint, 0);
                committer.notifyOfCompletedCheckpoint(checkpoint);
            }
            writer.getOperator().finish();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        int top = table.coreOptions().numLevels() - 1;
        List<Integer> levels = new ArrayList<>();
        for (DataSplit split : table.newSnapshotReader().read().dataSplits()) {
            for (DataFileMeta f : split.dataFiles()) {
                levels.add(f.level());
            }
        }
        if (deltaCommits) {
            assertThat(levels).as("every file of checkpoint 2 fully compacted").hasSize(2).containsOnly(top);
        } else {
            assertThat(levels).as("without the option, checkpoint 2's files sit below the top").contains(top - 1);
        }
    }

    private OneInputStreamOperatorTestHarness<InternalRow, Committable> writer(FileStoreTable table)
            throws Exception {
        RowConverter<InternalRow> identity = row -> row;
        MockEnvironment env = HarnessEnvironment.of(dir);
        OneInputStreamOperatorTestHarness<InternalRow, Committable> harness =
                new OneInputStreamOperatorTestHarness<>(new GovernedWriterOperator<>(table, Map.of(), GovernedWriterOperator.Feeder.rows(identity), "job-user", null), env);
        harness.getStreamConfig().setManagedMemoryFractionOperatorOfUseCase(ManagedMemoryUseCase.OPERATOR, 1.0);
        return harness;
    }
}
