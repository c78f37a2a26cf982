package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.runtime.memory.MemoryManager;
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
 * A writer closed before its input finished (its task was cancelled or failed) gives the write back
 * on the thread that closes it, before close returns: the slot's managed memory (Flink's own memory
 * manager says so), with no spill scope ever made under the task manager's temp dirs (the write
 * never spilled, so it never touched the disk) and no thread of
 * the runtime's started for the cleanup (the JVM's own record of thread starts, a JFR recording,
 * says so). On a busy task manager such a thread first has to be scheduled while the task thread
 * waits for it, which made a cancelled job's writer tasks end later than Paimon's own.
 */
class WriterCloseTest {

    @TempDir Path dir;

    @Test
    void aWriterClosedBeforeItsInputFinishedGivesTheWriteBackOnTheClosingThread() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "avro");
        MockEnvironment env = HarnessEnvironment.of(dir);
        MemoryManager memory = env.getMemoryManager();
        RowConverter<InternalRow> identity = row -> row;
        OneInputStreamOperatorTestHarness<InternalRow, Committable> writer =
                new OneInputStreamOperatorTestHarness<>(new GovernedWriterOperator<>(table, Map.of(), GovernedWriterOperator.Feeder.rows(identity), "job-user", null), env);
        writer.getStreamConfig().setManagedMemoryFractionOperatorOfUseCase(ManagedMemoryUseCase.OPERATOR, 1.0);
        writer.open();
        for (int k = 0; k < 5_000; k++) {
            writer.processElement(new StreamRecord<>(GenericRow.of(k % 2, k, BinaryString.fromString("v" + k))));
        }
        assertThat(memory.availableMemory()).as("managed memory the open write holds").isLessThan(memory.getMemorySize());
        assertThat(scopes(env)).as("a spill scope of a write that never spilled").isEmpty();

        List<String> started = new ArrayList<>();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ThreadStart");
            recording.start();
            // What Flink does to a cancelled task: the task's cancel, then its operators closed, not
            // finished (the harness's own close would finish the operator first).
            writer.getOperator().getContainingTask().cancel();
            writer.getOperator().close();
            recording.stop();
            Path events = dir.resolve("close.jfr");
            recording.dump(events);
            RecordingFile.readAllEvents(events).forEach(e -> {
                RecordedThread thread = e.getThread("thread");
                started.add(thread == null ? "?" : thread.getJavaName());
            });
        }

        assertThat(memory.availableMemory()).as("managed memory after close").isEqualTo(memory.getMemorySize());
        assertThat(scopes(env)).as("spill scopes after close").isEmpty();
        assertThat(started).as("threads started while the writer closed").noneMatch(name -> name.startsWith("paimon-gov-cancel-"));
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
        env.close();
    }

    /** Governed spill scopes under the task manager's temp directories, the writer's spill roots. */
    private static List<Path> scopes(MockEnvironment env) throws IOException {
        List<Path> scopes = new ArrayList<>();
        for (String root : env.getTaskManagerInfo().getTmpDirectories()) {
            try (Stream<Path> children = Files.list(Path.of(root))) {
                children.filter(p -> p.getFileName().toString().startsWith("paimon-gov-")).forEach(scopes::add);
            }
        }
        return scopes;
    }
}
