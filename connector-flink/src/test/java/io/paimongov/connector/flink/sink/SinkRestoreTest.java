package io.paimongov.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink's operators restored from their own state with Flink's operator test harnesses, as after
 * a failover or a savepoint (whose job is rebuilt and so makes a new commit user). The committer is
 * fed real commit messages of an append table (where a second commit of one checkpoint shows as
 * duplicate rows). Expected values come from the test's model: the identifiers it handed in, minus
 * those its own scan of the table's snapshots finds committed for the user before the restore.
 */
class SinkRestoreTest {

    private static final String FIRST_USER = "first-job-user";

    @TempDir Path dir;

    @Test
    void aRestoredCommitterCommitsUnderItsRestoredUserOnlyWhatWasNotCommittedAndFailsOnce() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "t", Map.of("bucket", "-1"), false);
        Map<Long, List<String>> handedIn = new TreeMap<>(Map.of(3L, List.of("a", "b"), 4L, List.of("c")));

        OperatorSubtaskState state;
        try (OneInputStreamOperatorTestHarness<Committable, Void> first = committer(table, FIRST_USER)) {
            first.open();
            feed(first, table, 3, handedIn.get(3L));
            first.snapshot(3, 0);
            feed(first, table, 4, handedIn.get(4L));
            state = first.snapshot(4, 0);
            first.notifyOfCompletedCheckpoint(3); // then the job fails before checkpoint 4 is reported complete
        }
        List<Long> committedBefore = identifiersOf(table, FIRST_USER);
        assertThat(committedBefore).as("the first job committed checkpoint 3 only").containsExactly(3L);

        // Model: every identifier handed in once, under the first user; rows of each exactly once.
        List<Long> expectedIdentifiers = new ArrayList<>(handedIn.keySet());
        List<String> expectedRows = new ArrayList<>();
        handedIn.values().forEach(expectedRows::addAll);
        int expectedNewCommits = (int) handedIn.keySet().stream().filter(id -> !committedBefore.contains(id)).count();

        Throwable failure;
        try (OneInputStreamOperatorTestHarness<Committable, Void> restored = committer(table, "rebuilt-job-user")) {
            restored.setup();
            failure = catchFailure(() -> restored.initializeState(state));
        }
        assertThat(identifiersOf(table, FIRST_USER)).isEqualTo(expectedIdentifiers);
        assertThat(identifiersOf(table, "rebuilt-job-user")).isEmpty();
        assertThat(rows(table)).containsExactlyInAnyOrderElementsOf(expectedRows);
        RestoredCommitException intended = findCause(failure, RestoredCommitException.class);
        assertThat(intended).as("the restore that committed fails once, on purpose; it threw %s", failure).isNotNull();
        assertThat(intended.committed()).isEqualTo(expectedNewCommits);
        assertThat(intended).hasMessage("restored sink of 't' committed " + expectedNewCommits + " checkpoint(s) left"
                + " uncommitted before the restore; failing once on purpose so the writers restart from the new snapshot");

        try (OneInputStreamOperatorTestHarness<Committable, Void> again = committer(table, "third-job-user")) {
            again.setup();
            again.initializeState(state); // every identifier committed: commits nothing, does not throw
            again.open();
            assertThat(((GovernedCommitterOperator) again.getOperator()).commitUser()).isEqualTo(FIRST_USER);
        }
        assertThat(identifiersOf(table, FIRST_USER)).isEqualTo(expectedIdentifiers);
        assertThat(rows(table)).containsExactlyInAnyOrderElementsOf(expectedRows);
    }

    @Test
    void everyWriterSubtaskOfAScaledUpJobRestoresTheCommitUser() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "t", Map.of("bucket", "-1"), false);
        OperatorSubtaskState state;
        try (OneInputStreamOperatorTestHarness<InternalRow, Committable> one = writer(table, FIRST_USER, 1, 0)) {
            one.setup();
            one.initializeEmptyState();
            assertThat(writerOf(one).commitUser()).isEqualTo(FIRST_USER);
            state = one.snapshot(1, 0);
        }
        int parallelism = 3;
        for (int subtask = 0; subtask < parallelism; subtask++) {
            OperatorSubtaskState part =
                    AbstractStreamOperatorTestHarness.repartitionOperatorState(state, parallelism, 1, parallelism, subtask);
            try (OneInputStreamOperatorTestHarness<InternalRow, Committable> restored =
                    writer(table, "rebuilt-job-user", parallelism, subtask)) {
                restored.setup();
                restored.initializeState(part);
                assertThat(writerOf(restored).commitUser()).as("subtask %s", subtask).isEqualTo(FIRST_USER);
            }
        }
    }

    @Test
    void aStateHoldingTwoCommitUsersFailsTheRestoreNamingBoth() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "t", Map.of("bucket", "-1"), false);
        OperatorSubtaskState a = writerState(table, "user-a");
        OperatorSubtaskState b = writerState(table, "user-b");
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(a, b);
        try (OneInputStreamOperatorTestHarness<InternalRow, Committable> restored = writer(table, "user-c", 1, 0)) {
            restored.setup();
            Throwable failure = catchFailure(() -> restored.initializeState(merged));
            assertThat(findCause(failure, IllegalStateException.class))
                    .as("it threw %s", failure)
                    .hasMessage("the restored state of the sink holds two commit users, 'user-a' and 'user-b'; a sink"
                            + " commits under one user");
        }
    }

    /** A cancelled or failed job publishes nothing that no completed checkpoint covers. */
    @Test
    void aCommitterClosedBeforeItsCheckpointCompletedCommitsNothing() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "t", Map.of("bucket", "-1"), false);
        try (OneInputStreamOperatorTestHarness<Committable, Void> committer = committer(table, FIRST_USER, true)) {
            committer.open();
            feed(committer, table, 5, List.of("a"));
            committer.snapshot(5, 0);
            feed(committer, table, 6, List.of("b"));
        }
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
    }

    /**
     * In a streaming job with checkpoints, what the writers hand off at the end of input (a stop with
     * drain) is committed with the next checkpoint, under its id; a job restored from that state then
     * commits its own checkpoints. Model: the checkpoints the test completed, the rows it handed in.
     */
    @Test
    void theEndOfInputOfACheckpointedJobIsCommittedWithTheNextCheckpointAndTheRestoredJobCommitsOn() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "t", Map.of("bucket", "-1"), false);
        OperatorSubtaskState savepoint;
        try (OneInputStreamOperatorTestHarness<Committable, Void> first = committer(table, FIRST_USER, true)) {
            first.open();
            feed(first, table, GovernedWriterOperator.END_INPUT, List.of("a"));
            first.endInput();
            assertThat(table.snapshotManager().latestSnapshot()).as("nothing committed at the end of input").isNull();
            savepoint = first.snapshot(7, 0);
            first.notifyOfCompletedCheckpoint(7);
        }
        assertThat(identifiersOf(table, FIRST_USER)).containsExactly(7L);

        try (OneInputStreamOperatorTestHarness<Committable, Void> restored = committer(table, "rebuilt-job-user", true)) {
            restored.setup();
            restored.initializeState(savepoint);
            restored.open();
            feed(restored, table, 8, List.of("b"));
            restored.snapshot(8, 0);
            restored.notifyOfCompletedCheckpoint(8);
        }
        assertThat(identifiersOf(table, FIRST_USER)).containsExactly(7L, 8L);
        assertThat(rows(table)).containsExactlyInAnyOrder("a", "b");
    }

    /** Without a checkpoint after the end of input (batch, or no checkpointing) the end of input commits. */
    @Test
    void withoutACheckpointAfterTheEndOfInputTheCommitterCommitsAtTheEndOfInput() throws Exception {
        FileStoreTable table = TestTables.createTable(dir, "t", Map.of("bucket", "-1"), false);
        try (OneInputStreamOperatorTestHarness<Committable, Void> committer = committer(table, FIRST_USER, false)) {
            committer.open();
            feed(committer, table, GovernedWriterOperator.END_INPUT, List.of("a"));
            committer.endInput();
        }
        assertThat(identifiersOf(table, FIRST_USER)).containsExactly(GovernedWriterOperator.END_INPUT);
        assertThat(rows(table)).containsExactly("a");
    }

    private static OperatorSubtaskState writerState(FileStoreTable table, String user) throws Exception {
        try (OneInputStreamOperatorTestHarness<InternalRow, Committable> h = writer(table, user, 1, 0)) {
            h.setup();
            h.initializeEmptyState();
            return h.snapshot(1, 0);
        }
    }

    private static OneInputStreamOperatorTestHarness<Committable, Void> committer(FileStoreTable table, String user)
            throws Exception {
        return committer(table, user, false);
    }

    private static OneInputStreamOperatorTestHarness<Committable, Void> committer(
            FileStoreTable table, String user, boolean checkpointAfterEndInput) throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new GovernedCommitterOperator(table, user, checkpointAfterEndInput, null));
    }

    private static OneInputStreamOperatorTestHarness<InternalRow, Committable> writer(
            FileStoreTable table, String user, int parallelism, int subtask) throws Exception {
        RowConverter<InternalRow> identity = row -> row;
        return new OneInputStreamOperatorTestHarness<>(
                new GovernedWriterOperator<>(table, Map.of(), GovernedWriterOperator.Feeder.rows(identity), user, null), parallelism, parallelism, subtask);
    }

    @SuppressWarnings("unchecked")
    private static GovernedWriterOperator<InternalRow> writerOf(OneInputStreamOperatorTestHarness<InternalRow, Committable> h) {
        return (GovernedWriterOperator<InternalRow>) h.getOperator();
    }

    /** Hands the committer the messages of a plain Paimon write of {@code values} for checkpoint {@code id}. */
    private static void feed(OneInputStreamOperatorTestHarness<Committable, Void> committer, FileStoreTable table, long id,
            List<String> values) throws Exception {
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        try (StreamTableWrite write = table.newStreamWriteBuilder().withCommitUser("writer").newWrite()) {
            for (int k = 0; k < values.size(); k++) {
                write.write(GenericRow.of(1, k, BinaryString.fromString(values.get(k))));
            }
            for (CommitMessage message : write.prepareCommit(false, id)) {
                committer.processElement(new StreamRecord<>(
                        new Committable(id, serializer.getVersion(), serializer.serialize(message))));
            }
        }
    }

    /** The commit identifiers of the user's APPEND snapshots, oldest first, read from the snapshot files. */
    private static List<Long> identifiersOf(FileStoreTable table, String user) throws Exception {
        List<Snapshot> all = new ArrayList<>();
        table.snapshotManager().snapshots().forEachRemaining(all::add);
        all.sort(Comparator.comparingLong(Snapshot::id));
        List<Long> ids = new ArrayList<>();
        for (Snapshot snapshot : all) {
            if (snapshot.commitUser().equals(user) && snapshot.commitKind() == Snapshot.CommitKind.APPEND) {
                ids.add(snapshot.commitIdentifier());
            }
        }
        return ids;
    }

    private static List<String> rows(FileStoreTable table) throws Exception {
        List<String> values = new ArrayList<>();
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> values.add(row.getString(2).toString()));
        }
        return values;
    }

    private interface Step {
        void run() throws Exception;
    }

    private static Throwable catchFailure(Step step) {
        try {
            step.run();
        } catch (Throwable t) {
            return t;
        }
        return null;
    }

    private static <E extends Throwable> E findCause(Throwable failure, Class<E> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
