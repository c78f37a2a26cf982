package io.paimongov.runtime.write;

import io.paimongov.runtime.write.OpenedWrite.Mode;
import io.paimongov.runtime.write.WriteLifecycle.State;
import io.paimongov.spi.GovernanceClosedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * The write path of one governed write: each row is checked against the table's row type, its
 * (partition, bucket) writer admitted by memory ({@link WriterAdmission}) and the row handed to
 * Paimon; prepareCommit flushes the writers, records what was written and hands back a {@link
 * Handoff}. Every call first checks that the write may take it (state, interrupt, cancellation)
 * and sends any failure through {@link WriteFailures}, which undoes the write.
 *
 * <p><b>Thread-safety:</b> one writing thread; each call holds the write's call lock from start to
 * end ({@link OpenedWrite#enter()}). Keeps no mutable state of its own.
 */
final class WritePath {

    private final OpenedWrite w;
    private final WriteFailures failures;
    private final WriteCancellation cancellation;
    private final CommitSettlement settlement;
    private final RowSize rowSize;
    private final RowShape rowShape;
    /** Every table mode's buckets, dynamic ones assigned here ({@link RowBuckets}). */
    private final RowBuckets buckets;
    /** Paimon's {@code prepareCommitWaitCompaction()}: every prepareCommit waits (see {@link #prepare}). */
    private final boolean tableWaits;

    WritePath(OpenedWrite write, WriteFailures failures, WriteCancellation cancellation, CommitSettlement settlement) {
        this.w = write;
        this.failures = failures;
        this.cancellation = cancellation;
        this.settlement = settlement;
        this.rowSize = new RowSize(write.table.rowType());
        this.rowShape = RowShape.of(write.table.name(), write.table.rowType());
        this.buckets = RowBuckets.of(write);
        this.tableWaits = write.table.coreOptions().prepareCommitWaitCompaction();
    }

    /** See {@link GovernedTableWrite#write(InternalRow)}. */
    void write(InternalRow row) throws Exception {
        if (buckets.preAssigned()) {
            throw new IllegalStateException("the rows of " + w.tableMode.describe() + ", written behind an assigner"
                    + " stage (" + w.channels + "), come with their buckets: assign them with GovernedAssigner before"
                    + " the writers' shuffle and write them with write(row, bucket)");
        }
        rowShape.check(row);
        w.enter();
        try {
            check(State.OPEN, "write");
            w.serveCompaction();
            w.giveBackOwed();
            long bytes = rowSize.of(row);
            if (w.crossPartition != null) {
                w.crossPartition.assign(row, (assigned, bucket) ->
                        writeAssigned(assigned, buckets.partition(assigned), bucket, assigned == row ? bytes : rowSize.of(assigned)));
            } else {
                BinaryRow partition = buckets.partition(row);
                writeAssigned(row, partition, buckets.bucket(row, partition), bytes);
            }
            w.context.recorder().recordInput(1, bytes);
        } catch (Throwable t) {
            throw failures.fail(t);
        } finally {
            w.leave();
        }
    }

    /** See {@link GovernedTableWrite#write(InternalRow, int)}. */
    void write(InternalRow row, int bucket) throws Exception {
        if (!buckets.preAssigned()) {
            throw new IllegalStateException(w.tableMode.describe() + " picks the bucket of each row itself"
                    + (w.channels.assigned() ? " (this write gets every row)" : " (its bucket function)")
                    + ": write rows with write(row)");
        }
        rowShape.check(row);
        w.enter();
        try {
            check(State.OPEN, "write");
            w.serveCompaction();
            w.giveBackOwed();
            long bytes = rowSize.of(row);
            BinaryRow partition = buckets.partition(row);
            buckets.beforeAssignedRow(partition, bucket);
            writeAssigned(row, partition, bucket, bytes);
            w.context.recorder().recordInput(1, bytes);
        } catch (Throwable t) {
            throw failures.fail(t);
        } finally {
            w.leave();
        }
    }

    /** Admits the writer of ({@code partition}, {@code bucket}) and hands {@code row} to it. */
    private void writeAssigned(InternalRow row, BinaryRow partition, int bucket, long bytes) throws Exception {
        // Before routing: the route admits a new writer.
        int before = w.writers.open().size();
        WriterRouting.Route route = w.writers.routing().route(partition, bucket, bytes);
        if (route == WriterRouting.Route.SORTED && !w.sorted.ready()) {
            // No room for the shared sort either: close writers whatever they took.
            w.writers.routing().admitClosingAny(partition, bucket, bytes);
            route = WriterRouting.Route.DIRECT;
        }
        if (route == WriterRouting.Route.SORTED) {
            w.sorted.add(partition, bucket, row);
        } else {
            w.write.write(row, bucket);
        }
        if (w.writers.open().size() != before) {
            w.context.compactionExecutor().bucketsActive(w.writers.open().size());
        }
    }

    /**
     * Prepares a commit: batch with {@code identifier} {@link Long#MAX_VALUE}, stream per checkpoint.
     * A table that asks every commit to wait for compaction (Paimon's {@code
     * prepareCommitWaitCompaction()}: {@code lookup-wait} on a table that looks keys up) waits
     * whatever {@code waitCompactionAsked} says, as Paimon's own sink does ({@code StoreSinkWriteImpl}
     * ORs the two). Paimon relies on it: for such a table it writes a deletion-vector bucket's index
     * at prepareCommit from the live deletion vectors ({@code CompactDeletionFile.lazyGeneration}),
     * which is consistent with the committed files only while no compaction of the bucket runs.
     */
    PreparedCommit prepare(boolean waitCompactionAsked, long identifier) throws Exception {
        boolean waitCompaction = waitCompactionAsked || tableWaits;
        w.enter();
        long start = System.nanoTime();
        long waitedBefore = w.context.compactionExecutor().waitedNanos();
        try {
            check(State.OPEN, "prepareCommit");
            w.serveCompaction();
            w.giveBackOwed();
            if (w.context.compactionExecutor().threadBound() > 1) {
                triggerFirst(waitCompaction);
            }
            // In the order the files were made: a writer closed early and reopened may compact files of
            // its earlier message, and Paimon's commit must see a file added before it is deleted.
            List<CommitMessage> messages = new ArrayList<>(w.writers.closed().takeMessages());
            messages.addAll(
                    w.mode == Mode.BATCH ? w.write.prepareCommit() : w.write.prepareCommit(waitCompaction, identifier));
            if (!w.sorted.isEmpty()) {
                if (w.mode == Mode.BATCH) {
                    w.writers.eviction().closePrepared();
                }
                messages.addAll(w.sorted.drain());
            }
            if (w.mode == Mode.BATCH) {
                w.writers.closed().forget();
            }
            buckets.afterPrepare(w.mode == Mode.STREAM, identifier, w.commitUser);
            Handoff prepared = new Handoff(w, cancellation, settlement, messages, w.fileIO.drain(), identifier);
            w.commits.prepared(prepared);
            w.context.token().throwIfCancelled();
            recordOutput(messages);
            releaseClosedWriters();
            w.context.recorder().recordPaimon(w.paimonMetrics.read());
            if (w.mode == Mode.BATCH) {
                w.lifecycle.prepared();
            }
            return prepared;
        } catch (Throwable t) {
            throw failures.fail(t);
        } finally {
            // Only the writing thread waits on compaction futures, and it is here, holding the call lock.
            long waited = w.context.compactionExecutor().waitedNanos() - waitedBefore;
            w.context.recorder().recordPrepareCommit(System.nanoTime() - start, waited);
            w.leave();
        }
    }

    /** See {@link GovernedTableWrite#compact}. */
    boolean compact(BinaryRow partition, int bucket, boolean full) throws Exception {
        w.enter();
        try {
            check(State.OPEN, "compact");
            w.serveCompaction();
            w.giveBackOwed();
            if (!PaimonWriters.isOpen(paimonWrite(), partition, bucket)) {
                return false;
            }
            w.context.token().throwIfCancelled();
            w.write.compact(partition, bucket, full);
            return true;
        } catch (Throwable t) {
            throw failures.fail(t);
        } finally {
            w.leave();
        }
    }

    /** See {@link GovernedTableWrite#activeBuckets}. */
    Map<BinaryRow, List<Integer>> activeBuckets() {
        w.enter();
        try {
            Map<BinaryRow, List<Integer>> active = new LinkedHashMap<>();
            if (w.lifecycle.state() == State.OPEN) {
                paimonWrite().getActiveBuckets().forEach((partition, buckets) -> active.put(partition.copy(), List.copyOf(buckets)));
            }
            return Collections.unmodifiableMap(active);
        } finally {
            w.leave();
        }
    }

    private AbstractFileStoreWrite<?> paimonWrite() {
        return (AbstractFileStoreWrite<?>) w.write.getWrite();
    }

    /**
     * Checks, inside a call, that the write may take it. Polls the cancellation (the engine's signal
     * with it) once: this runs for every row.
     */
    private void check(State expected, String call) {
        boolean cancelled = w.context.isCancelled();
        if (cancelled && w.lifecycle.state() == State.DONE) {
            throw cancellation.cancelled();
        }
        if (w.lifecycle.state() != expected) {
            String why = w.lifecycle.state() == State.PREPARED ? "prepared (a batch write prepares once)" : "closed";
            throw new GovernanceClosedException("cannot " + call + ": the write is " + why);
        }
        if (!cancelled && Thread.currentThread().isInterrupted()) {
            cancellation.cancelIfInterrupted(null);
            cancelled = true;
        }
        if (cancelled) {
            w.context.token().throwIfCancelled();
        }
    }

    /**
     * Paimon's prepareCommit walks the writers one by one (flush, wait, trigger, wait), so compactions of
     * different buckets it waits for never overlap inside it. Flushing those buckets and triggering
     * their compaction first lets them run on all threads; prepareCommit then mostly waits. With
     * {@code waitCompaction} those are every active bucket; without, the buckets Paimon will make
     * wait because they hold more sorted runs than its stop trigger ({@link
     * PaimonWriters#pastStopTrigger}): a bucket below it is left to compact in the background, as
     * Paimon does.
     */
    private void triggerFirst(boolean waitCompaction) throws Exception {
        AbstractFileStoreWrite<?> paimon = paimonWrite();
        Map<BinaryRow, List<Integer>> active = paimon.getActiveBuckets();
        for (Map.Entry<BinaryRow, List<Integer>> partition : active.entrySet()) {
            for (int bucket : partition.getValue()) {
                if (waitCompaction || PaimonWriters.pastStopTrigger(paimon, partition.getKey(), bucket)) {
                    w.context.token().throwIfCancelled();
                    w.write.compact(partition.getKey(), bucket, false);
                }
            }
        }
    }

    private void recordOutput(List<CommitMessage> messages) {
        List<DataFileMeta> files = CommitFiles.dataFiles(messages);
        w.context.recorder().recordOutput(files.size(), CommitFiles.bytes(files));
    }

    /** Batch writers are all done after prepareCommit; stream writers Paimon closed are gone. */
    private void releaseClosedWriters() {
        if (w.mode == Mode.BATCH) {
            w.writers.releaseAll();
        } else {
            w.writers.open().releaseClosed(paimonWrite().getActiveBuckets());
        }
    }
}
