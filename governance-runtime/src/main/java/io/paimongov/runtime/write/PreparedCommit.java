package io.paimongov.runtime.write;

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
     * Commits the messages to the table. A write cancelled (or whose thread was interrupted) before
     * this call publishes nothing. A cancel while the commit runs stops it before each manifest
     * file it creates, every 256 KiB of manifest it writes or reads, and before it writes its
     * snapshot: then nothing was published, the files are deleted as below, the write is undone
     * and this throws {@code WriteCancelledException}. A cancel after the commit wrote its snapshot
     * lets it finish: this returns normally, the commit published.
     *
     * <p>When Paimon's commit throws, this settles what happened before it returns: if a snapshot
     * with the write's commit user and this commit's identifier appeared since the commit began, the
     * commit landed and this returns normally (the error is logged); otherwise nothing was published,
     * the messages' data files and the manifest files the commit wrote are deleted, and the error is
     * rethrown. When the table's snapshots cannot be read to tell, the files are kept and the error
     * is rethrown with the reason attached as suppressed.
     *
     * <p>Before each snapshot the commit writes, the snapshots other commit users wrote since the
     * write opened (or since its previous commit) are read: one that added files to a bucket this
     * commit adds to (a partition, for dynamic buckets) fails the commit before it publishes ({@link
     * ConcurrentWriterException}), its files deleted as above.
     *
     * @throws io.paimongov.spi.WriteCancelledException when the write was cancelled first, or while
     *     the commit ran and before its snapshot (its cause: what Paimon's commit threw)
     * @throws ConcurrentWriterException when another writer committed into this write's buckets
     *     since it opened: nothing was published
     * @throws Exception what Paimon's commit threw, when the commit did not land (its files deleted)
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
