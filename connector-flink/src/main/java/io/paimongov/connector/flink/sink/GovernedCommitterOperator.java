package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.paimon.table.sink.StreamTableCommit;

/**
 * Commits what the writers hand off, with parallelism 1. Messages of checkpoint {@code n} arrive
 * before its barrier, are kept in operator state at the checkpoint and committed when Flink reports
 * the checkpoint complete. What the writers hand off at the end of input ({@link
 * GovernedWriterOperator#END_INPUT}) is committed at the end of input when no checkpoint follows it
 * (a batch job, or no checkpointing); in a streaming job with checkpoints it joins the next
 * checkpoint (Flink's final checkpoint, or the savepoint of a stop with drain) and is committed under
 * that checkpoint's id. Committing it under {@code END_INPUT} there would end the commit user's
 * identifiers: a job restored from a drained savepoint would have every later checkpoint filtered
 * out as committed by {@code filterAndCommit}, which skips identifiers up to the user's latest. After
 * a restore the messages in state are committed with Paimon's {@code filterAndCommit}, which skips
 * identifiers this commit user already committed, so a commit is never published twice. The commit
 * user is kept in operator state ({@link CommitUserState}), so a job restored from a checkpoint or a
 * savepoint keeps it.
 *
 * <p>Restore and fail: when the restore committed at least one checkpoint, {@code initializeState}
 * then throws {@link RestoredCommitException}, once. The writers restored beside it opened their
 * buckets before that commit; the restart makes them start from the new snapshot. The next restore
 * finds those identifiers committed, commits nothing and does not throw. A job restored this way
 * needs a restart strategy that allows the extra attempt.
 *
 * <p>Nothing is committed that did not reach a completed checkpoint or the end of input: a job
 * cancelled before either publishes no snapshot.
 *
 * <p>Thread-safety: Flink calls every method on the task thread. May throw what Paimon's commit
 * throws; Flink then fails the task (and restores, when checkpointing is on).
 */
final class GovernedCommitterOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<Committable, Void>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final String initialCommitUser;
    private final boolean checkpointAfterEndInput;
    private final HashMap<String, String> overwrite;
    private transient String commitUser;
    private transient NavigableMap<Long, List<Committable>> pending;
    private transient ListState<Committable> state;
    private transient StreamTableCommit commit;

    /**
     * @param checkpointAfterEndInput whether a checkpoint follows the end of input (streaming mode
     *     with checkpoints, and checkpoints after tasks finish): then the end of input's messages
     *     are committed with it
     */
    /**
     * @param overwrite the partitions an overwrite replaces (see {@link
     *     GovernedPaimonSink.Builder#overwrite}); null for a plain write. An overwrite commits at
     *     the end of input also when nothing was written, so that the partitions are emptied.
     */
    GovernedCommitterOperator(FileStoreTable table, String commitUser, boolean checkpointAfterEndInput, Map<String, String> overwrite) {
        this.table = table;
        this.initialCommitUser = commitUser;
        this.checkpointAfterEndInput = checkpointAfterEndInput;
        this.overwrite = overwrite == null ? null : new HashMap<>(overwrite);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        commitUser = CommitUserState.restoreOrKeep(context, initialCommitUser);
        pending = new TreeMap<>();
        state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("paimon-gov-pending", Committable.class));
        commit = overwrite == null
                ? table.newStreamWriteBuilder().withCommitUser(commitUser).newCommit()
                : table.newCommit(commitUser).withOverwrite(overwrite).ignoreEmptyCommit(false);
        for (Committable restored : state.get()) {
            add(restored);
        }
        int committed = commitUpTo(Long.MAX_VALUE);
        if (committed > 0) {
            throw new RestoredCommitException(table.name(), committed);
        }
    }

    /** The commit user: the restored one, else the one the job was built with. */
    String commitUser() {
        return commitUser;
    }

    @Override
    public void processElement(StreamRecord<Committable> element) {
        add(element.getValue());
    }

    private void add(Committable committable) {
        pending.computeIfAbsent(committable.checkpointId, id -> new ArrayList<>()).add(committable);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<Committable> ended = checkpointAfterEndInput ? pending.remove(GovernedWriterOperator.END_INPUT) : null;
        if (ended != null) {
            for (Committable c : ended) {
                add(new Committable(context.getCheckpointId(), c.serializerVersion, c.message));
            }
        }
        List<Committable> all = new ArrayList<>();
        pending.values().forEach(all::addAll);
        state.update(all);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitUpTo(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        if (overwrite != null) {
            pending.computeIfAbsent(GovernedWriterOperator.END_INPUT, id -> new ArrayList<>());
        }
        if (!checkpointAfterEndInput) {
            commitUpTo(Long.MAX_VALUE);
        }
    }

    /** Commits the pending checkpoints up to {@code checkpointId}; returns how many were not committed before. */
    private int commitUpTo(long checkpointId) throws Exception {
        NavigableMap<Long, List<Committable>> due = pending.headMap(checkpointId, true);
        if (due.isEmpty()) {
            return 0;
        }
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        Map<Long, List<CommitMessage>> messages = new TreeMap<>();
        for (Map.Entry<Long, List<Committable>> checkpoint : due.entrySet()) {
            List<CommitMessage> list = new ArrayList<>(checkpoint.getValue().size());
            for (Committable c : checkpoint.getValue()) {
                list.add(serializer.deserialize(c.serializerVersion, c.message));
            }
            messages.put(checkpoint.getKey(), list);
        }
        int committed = commit.filterAndCommit(messages);
        due.clear();
        return committed;
    }

    @Override
    public void close() throws Exception {
        try {
            if (commit != null) {
                commit.close();
            }
        } finally {
            super.close();
        }
    }
}
