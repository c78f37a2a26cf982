package io.paimongov.connector.flink.sink;

/**
 * The intended failure after a restored committer committed checkpoints that the failed or stopped
 * job had not committed: the writers restored beside it opened their buckets from the snapshot
 * before that commit, so the job restarts once to let them start from the new one. Flink's restart
 * strategy handles it; the restart restores the same state, finds every identifier committed and
 * does not throw again.
 *
 * <p>Immutable; thrown on the committer's task thread from {@code initializeState}.
 */
public final class RestoredCommitException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int committed;

    RestoredCommitException(String table, int committed) {
        super("restored sink of '" + table + "' committed " + committed + " checkpoint(s) left uncommitted before the"
                + " restore; failing once on purpose so the writers restart from the new snapshot");
        this.committed = committed;
    }

    /** How many checkpoints the restore committed. */
    public int committed() {
        return committed;
    }
}
