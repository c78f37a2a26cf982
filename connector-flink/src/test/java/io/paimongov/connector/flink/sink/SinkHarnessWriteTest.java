package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer and the committer wired by hand in Flink's operator test harnesses (8 MiB of managed
 * memory, the writer's fraction 1): rows, a checkpoint barrier, the committer's completed
 * checkpoint, then a batch read. Expected values: the test's own fold of the rows it wrote.
 */
class SinkHarnessWriteTest {

    @TempDir Path dir;

    @Test
    void aDeletionVectorTableCheckpointWaitsForCompactionSoTheCommittedRowsAreVisible() throws Exception {
        // Deletion vectors: a batch read skips level 0, so rows are visible only once compacted.
        FileStoreTable table = TestTables.createTable(
                dir, "dv", Map.of("bucket", "1", "deletion-vectors.enabled", "true"), true);
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (OneInputStreamOperatorTestHarness<InternalRow, Committable> writer = writer(table);
                OneInputStreamOperatorTestHarness<Committable, Void> committer =
                        new OneInputStreamOperatorTestHarness<>(new GovernedCommitterOperator(table, "job-user", false, null))) {
            writer.open();
            committer.open();
            for (int k = 0; k < 200; k++) {
                InternalRow row = GenericRow.of(1, k % 50, BinaryString.fromString("v" + k));
                TestTables.apply(model, row);
                writer.processElement(new StreamRecord<>(row));
            }
            writer.prepareSnapshotPreBarrier(1);
            for (Committable c : writer.extractOutputValues()) {
                committer.processElement(new StreamRecord<>(c));
            }
            committer.snapshot(1, 0);
            committer.notifyOfCompletedCheckpoint(1);
            writer.getOperator().finish();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
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
