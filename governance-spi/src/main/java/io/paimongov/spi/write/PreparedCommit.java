package io.paimongov.spi.write;

import java.util.List;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * The commit messages of one {@code prepareCommit}, still owned by the write that made them. Exactly
 * one of three things happens to them:
 *
 * <ul>
 *   <li>{@link #commit()}: the write commits them to the table;
 *   <li>{@link #handOff()}: the caller takes them (to commit elsewhere, e.g. on a Spark driver or a
 *       Flink committer) and becomes responsible for committing or aborting them;
 *   <li>neither: when the write closes, fails or is cancelled it aborts them, deleting their files.
 * </ul>
 *
 * <p><b>Thread-safety:</b> call from the writing thread (the one that called prepareCommit).
 */
public interface PreparedCommit {

    /** The messages, for inspection; still owned by the write. */
    List<CommitMessage> messages();

    /**
     * Commits the messages to the table. A write cancelled before this call publishes nothing.
     *
     * @throws io.paimongov.spi.WriteCancelledException when the write was cancelled first
     */
    void commit() throws Exception;

    /**
     * Gives the messages to the caller; the write will neither commit nor abort them.
     *
     * @throws io.paimongov.spi.WriteCancelledException when the write was cancelled first (the
     *     messages were aborted)
     * @throws io.paimongov.spi.GovernanceClosedException when they were committed, handed off or
     *     aborted already
     */
    List<CommitMessage> handOff();
}
