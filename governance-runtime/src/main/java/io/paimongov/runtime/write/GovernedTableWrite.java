package io.paimongov.runtime.write;

import io.paimongov.runtime.orphans.OpeningSweep;
import io.paimongov.runtime.write.OpenedWrite.Mode;
import io.paimongov.runtime.write.WriteLifecycle.State;
import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.InterruptedIOException;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Map;
import java.nio.channels.ClosedByInterruptException;
import java.util.Objects;
import java.util.UUID;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * A Paimon table write governed by one {@link ResourceContext}: its write buffer takes pages from
 * the context's budget, its spill files go to the context's spill scope, its compactions run on the
 * context's executor, and every call checks the cancellation.
 *
 * <p>How it works. This class is the face; the jobs are done by package-private parts that share
 * one {@link OpenedWrite}: opening wires the Paimon write to the context and reserves the fixed
 * estimates ({@link OpenedWrite}); the write path admits a new (partition, bucket) writer only when
 * its reservation and its first pages fit, after making room (cached pages released, the largest
 * other writer flushed or spilled), else the write fails with {@link ResourceExhaustedException}
 * ({@link WritePath}); a failure becomes a typed error ({@link WriteFailures}) after everything is
 * undone at once, in a fixed order ({@link WriteRelease}); cancels and interrupts are turned into
 * that same release ({@link WriteCancellation}); a commit that throws is settled against the
 * table's snapshots before {@link PreparedCommit#commit()} returns ({@link CommitSettlement}); files
 * of the table that no snapshot references and that are older than {@code
 * governance.orphans.older-than} are removed when the write opens ({@link OrphanSweep}).
 *
 * <p>An interrupt of the writing thread is a cancel: engines interrupt the task thread when they
 * cancel it (Flink does). A call that finds its thread interrupted at a check point, or that fails
 * with an interruption ({@link InterruptedException}, {@link ClosedByInterruptException}, {@link
 * InterruptedIOException}) cancels the write with the reason {@value #INTERRUPTED}, counts it in
 * {@code cancellations} and throws {@link WriteCancelledException}; the cleanup runs with the
 * interrupt flag cleared (so waiting for compaction threads and closing files work) and sets it
 * again before the call returns.
 *
 * <p><b>Thread-safety:</b> one writing thread calls {@link #write}, {@link #prepareCommit}, {@link
 * #compact} and {@link #close}; {@link #cancel} may be called from any thread at any time, also while a write call
 * is blocked. If the write is idle, the cancelling thread cleans up at once; otherwise the writing
 * thread does at its next check point and throws {@link WriteCancelledException}.
 */
public final class GovernedTableWrite implements AutoCloseable {

    /** The cancel reason when the writing thread was interrupted. */
    public static final String INTERRUPTED = "the writing thread was interrupted";

    /** Pages Paimon's sort buffer takes when a writer is created or re-initialised. */
    public static final int MIN_WRITER_PAGES = 3;

    private final OpenedWrite opened;
    private final WriteRelease release;
    private final WriteCancellation cancellation;
    private final WritePath path;
    private final OpeningSweep orphanSweep;

    private GovernedTableWrite(
            ResourceContext context, FileStoreTable table, Mode mode, String commitUser, WriteChannels channels, boolean overwrite) {
        this.opened = new OpenedWrite(context, table, mode, commitUser, channels, overwrite);
        try {
            WeakReference<OpenedWrite> self = new WeakReference<>(opened);
            this.orphanSweep = OrphanSweep.sweep(table, context.options().orphansOlderThan(), () -> {
                OpenedWrite w = self.get();
                return w != null && w.lifecycle.state() != State.DONE;
            });
            this.release = new WriteRelease(opened);
            this.cancellation = new WriteCancellation(opened, release);
            WriteFailures failures = new WriteFailures(opened, release, cancellation);
            this.path = new WritePath(opened, failures, cancellation, new CommitSettlement(opened));
            opened.budget.setReclaimer(opened.writers.flushes()::reclaim);
            context.token().onCancel(cancellation::onCancel);
        } catch (RuntimeException | Error e) {
            opened.abandon(e);
            throw e;
        }
    }

    /**
     * A batch write of {@code table} governed by {@code context}. The write takes the context over
     * and closes it when it closes.
     *
     * @throws ResourceExhaustedException when the budget cannot hold the write's fixed reservations
     *     and one writer (the message names them); the context is closed
     */
    public static GovernedTableWrite batch(FileStoreTable table, ResourceContext context) {
        return batch(table, context, WriteChannels.single(table), false);
    }

    /**
     * A batch write of one channel's rows of a write spread over {@code channels} (every row given to
     * this write must have one of the channel values that the engine sends here, see {@link
     * WriteChannels}). With {@code overwrite} the write is the data of an {@code INSERT OVERWRITE}:
     * it ignores the files the table has (new files are numbered from scratch, nothing is compacted
     * with them) and dynamic buckets are assigned from empty indexes, as Paimon's overwriting write
     * does; committing them as an overwrite is the committer's part ({@code
     * BatchWriteBuilder.withOverwrite}). Takes the context over.
     *
     * @throws UnsupportedTableModeException when {@code overwrite} is asked of a cross-partition
     *     update table
     */
    public static GovernedTableWrite batch(
            FileStoreTable table, ResourceContext context, WriteChannels channels, boolean overwrite) {
        return new GovernedTableWrite(
                context, table, Mode.BATCH, UUID.randomUUID().toString(), Objects.requireNonNull(channels, "channels"), overwrite);
    }

    /**
     * A streaming write with {@code commitUser}: {@link #prepareCommit(boolean, long)} once per
     * checkpoint, writers kept across checkpoints. Takes the context over.
     */
    public static GovernedTableWrite stream(FileStoreTable table, String commitUser, ResourceContext context) {
        return stream(table, commitUser, context, WriteChannels.single(table), false);
    }

    /**
     * A streaming write of one channel's rows of a write spread over {@code channels}, overwriting
     * or not; see {@link #batch(FileStoreTable, ResourceContext, WriteChannels, boolean)}. An engine
     * that runs bounded jobs through stream writes (Flink's batch mode) overwrites with it; the
     * write does not check that its input is bounded.
     */
    public static GovernedTableWrite stream(
            FileStoreTable table, String commitUser, ResourceContext context, WriteChannels channels, boolean overwrite) {
        return new GovernedTableWrite(context, table, Mode.STREAM, Objects.requireNonNull(commitUser, "commitUser"),
                Objects.requireNonNull(channels, "channels"), overwrite);
    }

    /** The table as this write writes it (governed options and FileIO). */
    public FileStoreTable table() {
        return opened.table;
    }

    public ResourceContext context() {
        return opened.context;
    }

    /** The options this write set on the table and what it reserves outside pages. */
    public WriteFootprint footprint() {
        return opened.footprint;
    }

    /**
     * Writes one row.
     *
     * @throws NullPointerException for a null row, {@link IllegalArgumentException} for a row that
     *     does not fit the table (wrong arity, null in a NOT NULL field, a value of the wrong class;
     *     the message names the field, its type and what the row holds); the row is refused before
     *     it reaches Paimon and the write stays usable
     * @throws WriteCancelledException when the write was cancelled (everything already undone)
     * @throws ResourceExhaustedException when a new writer cannot be admitted even after making room
     *     (everything already undone)
     * @throws GovernanceClosedException after prepareCommit (batch), failure or close
     * @throws IllegalStateException for a dynamic-bucket or cross-partition table written by one of
     *     several channels, whose rows come with their buckets ({@link #write(InternalRow, int)}); the
     *     write stays usable
     */
    public void write(InternalRow row) throws Exception {
        path.write(row);
    }

    /**
     * Writes one row whose bucket was assigned before it reached this write: the rows of a
     * dynamic-bucket or cross-partition update table written by one of several channels ({@link
     * WriteChannels#count()} above 1), assigned by a {@link GovernedAssigner} and routed to this write
     * by {@link WriteChannels#writerChannel}. The writers' key hashes of a dynamic-bucket table are
     * charged to the budget.
     *
     * @throws IllegalStateException when this write picks buckets itself (other table modes, or one
     *     channel); the write stays usable
     * @throws Exception {@link WriteCancelledException}, {@link ResourceExhaustedException} or {@link
     *     GovernanceClosedException}, as {@link #write(InternalRow)}
     */
    public void write(InternalRow row, int bucket) throws Exception {
        path.write(row, bucket);
    }

    /**
     * Batch: flushes every writer, waits for compactions and returns the commit messages. Once per
     * batch write.
     */
    public PreparedCommit prepareCommit() throws Exception {
        if (opened.mode != Mode.BATCH) {
            throw new IllegalStateException("prepareCommit() is for batch writes; use prepareCommit(waitCompaction, id)");
        }
        return path.prepare(true, Long.MAX_VALUE);
    }

    /**
     * Stream: prepares the commit of checkpoint {@code commitIdentifier}; writing may go on after.
     * With {@code waitCompaction} false it waits only for the buckets Paimon forces (docs/compaction.md,
     * "How long a checkpoint waits for compaction"); a table with {@code lookup-wait} on that looks keys
     * up (deletion vectors, the lookup changelog producer) always waits, as in Paimon's own sink.
     */
    public PreparedCommit prepareCommit(boolean waitCompaction, long commitIdentifier) throws Exception {
        if (opened.mode != Mode.STREAM) {
            throw new IllegalStateException("prepareCommit(waitCompaction, id) is for stream writes; use prepareCommit()");
        }
        return path.prepare(waitCompaction, commitIdentifier);
    }

    /**
     * Compacts one (partition, bucket) now, as Paimon's {@code TableWrite.compact}: the bucket's write
     * buffer is flushed, a compaction of the bucket still running is waited for, and a new one is
     * submitted, a full one (every file of the bucket into one sorted run at the highest level)
     * when {@code full}, else one if Paimon's strategy picks one. The new task runs on the write's
     * compaction executor like every other: it waits for its memory ({@code docs/compaction.md},
     * Memory), checks the cancellation and is counted and tracked; this call does not wait for it.
     * Its result goes into a later prepareCommit's messages (the next one that waits for it or finds
     * it done). Engines call this for Paimon's {@code full-compaction.delta-commits}.
     *
     * <p>Only a bucket this write holds an open writer for is compacted: opening one here would pass
     * by the write's admission. A bucket whose writer was closed early to make room, or whose rows
     * wait in the shared sort, is left alone.
     *
     * @return whether the bucket was compacted (false: this write holds no open writer for it)
     * @throws WriteCancelledException when the write was cancelled (everything already undone)
     * @throws GovernanceClosedException after prepareCommit (batch), failure or close
     */
    public boolean compact(BinaryRow partition, int bucket, boolean full) throws Exception {
        return path.compact(partition, bucket, full);
    }

    /**
     * The (partition, bucket) writers this write holds open in Paimon now, partition to buckets; a
     * copy. Stream writes keep a writer across checkpoints until Paimon closes it after a checkpoint
     * in which it wrote nothing. Empty once the write is no longer open.
     */
    public Map<BinaryRow, List<Integer>> activeBuckets() {
        return path.activeBuckets();
    }

    /**
     * Cancels the write from any thread. A commit that starts after this returns publishes nothing;
     * a commit already under way may finish. When the write is idle, everything is given back on
     * this thread before this returns.
     *
     * @return whether this call cancelled it (false when it already was)
     */
    public boolean cancel(String reason) {
        return cancellation.cancel(reason);
    }

    /**
     * What this write did about the table's orphan files when it opened ({@code
     * governance.orphans.older-than}): removed those older than the margin, or why not.
     */
    public OpeningSweep orphanSweep() {
        return orphanSweep;
    }

    /** A snapshot of the write's metrics (the final one once closed). */
    public MetricsSnapshot metrics() {
        return opened.context.snapshot();
    }

    /**
     * Closes the write: aborts prepared messages that were neither committed nor handed off, deletes
     * the spill scope and gives all memory back. Idempotent.
     *
     * @throws io.paimongov.spi.CleanupException when a step could not give back what it holds (a
     *     spill scope that cannot be deleted, compaction threads still running at {@code
     *     governance.compaction.stop-timeout}, memory the engine refused, Paimon's write failing to
     *     close): every step ran, the failed ones are listed and counted in {@code cleanupFailures};
     *     also, once, when a cancel released the write on another thread and that release failed
     */
    @Override
    public void close() throws Exception {
        opened.callLock.lock();
        try {
            Exception error = opened.lifecycle.state() != State.DONE ? release.release(true) : release.takeUnreported();
            if (error != null) {
                throw error;
            }
        } finally {
            opened.callLock.unlock();
        }
    }
}
