package io.paimongov.connector.flink.sink;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.StateInitializationContext;

/**
 * The sink's Paimon commit user, kept in operator union list state so that a job restored from a
 * checkpoint or a savepoint (also with another job id or another parallelism) commits under the
 * user it had. Paimon's {@code filterAndCommit} skips the identifiers a user already committed; a
 * new user after a restore would commit them again.
 *
 * <p>Union list state hands every subtask all entries, so a subtask added by scaling up finds the
 * user too. Stateless; called on the task thread in {@code initializeState}.
 */
final class CommitUserState {

    static final String STATE_NAME = "paimon-gov-commit-user";

    private CommitUserState() {}

    /**
     * Returns the user found in the restored state, or {@code initialUser} when there is none, and
     * keeps the returned user in the operator's state for the next snapshot.
     *
     * @throws IllegalStateException if the restored state holds two different users (state of two
     *     sinks merged by hand)
     */
    static String restoreOrKeep(StateInitializationContext context, String initialUser) throws Exception {
        ListState<String> state =
                context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>(STATE_NAME, String.class));
        List<String> restored = new ArrayList<>();
        for (String user : state.get()) {
            restored.add(user);
        }
        String user = restored.isEmpty() ? initialUser : restored.get(0);
        for (String other : restored) {
            if (!other.equals(user)) {
                throw new IllegalStateException("the restored state of the sink holds two commit users, '" + user
                        + "' and '" + other + "'; a sink commits under one user");
            }
        }
        state.update(List.of(user));
        return user;
    }
}
