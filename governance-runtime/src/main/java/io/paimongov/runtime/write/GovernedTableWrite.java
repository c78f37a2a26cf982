package io.paimongov.runtime.write;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.compaction.CompactionAdmission;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.runtime.memory.MemoryReservation;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.metrics.PaimonMetricCapture;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Paimon table write governed by one {@link ResourceContext}: its write buffer takes pages from
 * the context's budget, its spill files go to the context's spill scope, its compactions run on the
 * context's executor, and every call checks the cancellation token.
 *
 * <p>How it works. Before the first row the write is wired (memory pool factory, I/O manager,
 * compaction executor, metric registry) on a copy of the table whose options keep the writer's
 * memory bounded ({@link WriteFootprint}) and whose FileIO tracks the data files this write
 * creates. A new (partition, bucket) writer is admitted only when its reservation and its first
 * pages fit, after making room (cached pages released, the largest other writer flushed or
 * spilled); otherwise the write fails with {@link ResourceExhaustedException}. On failure or
 * cancel everything is undone at once, in this order: running compactions are interrupted and
 * queued ones cancelled; the Paimon write is closed (twice if the first close throws) and the
 * compaction threads end; prepared but uncommitted messages are aborted and the data files this
 * write created and nobody took over are deleted; the estimate reservations are returned; then the
 * context deletes the spill scope, returns the pages (only now: Paimon uses them until its write is
 * closed) and closes the engine's resources.
 *
 * <p>An interrupt of the writing thread is a cancel: engines interrupt the task thread when they
 * cancel it (Flink does). A call that finds its thread interrupted at a check point, or that fails
 * with an interruption ({@link InterruptedException}, {@link ClosedByInterruptException}, {@link
 * InterruptedIOException}) cancels the write with the reason {@value #INTERRUPTED}, counts it in
 * {@code cancellations} and throws {@link WriteCancelledException}; the cleanup runs with the
 * interrupt flag cleared (so waiting for compaction threads and closing files work) and sets it
 * again before the call returns.
 *
 * <p>A commit that throws is settled before {@link PreparedCommit#commit()} returns: the table's
 * snapshots since the commit began are read, and a snapshot with this write's commit user and
 * commit identifier means the commit landed (it then returns normally, the error logged, and the
 * manifest files of Paimon's failed attempts that no snapshot references are deleted); none means it
 * did not land, and the commit's data files and the manifest files its attempts wrote are deleted
 * before the error is rethrown. Only when the snapshots cannot be read are the files left,
 * and the error says so.
 *
 * <p><b>Thread-safety:</b> one writing thread calls {@link #write}, {@link #prepareCommit} and
 * {@link #close}; {@link #cancel} may be called from any thread at any time, also while a write call
 * is blocked. If the write is idle, the cancelling thread cleans up at once; otherwise the writing
 * thread does at its next check point and throws {@link WriteCancelledException}.
 */
public final class GovernedTableWrite implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GovernedTableWrite.class);

    /** Set while {@link #cancel} runs the token on this thread, which then cleans up itself. */
    private static final ThreadLocal<Boolean> CANCELLING_HERE = new ThreadLocal<>();

    /** The cancel reason when the writing thread was interrupted. */
    public static final String INTERRUPTED = "the writing thread was interrupted";

    /** Pages Paimon's sort buffer takes when a writer is created or re-initialised. */
    public static final int MIN_WRITER_PAGES = 3;

    private enum State {
        OPEN,
        PREPARED,
        DONE
    }

    private enum Mode {
        BATCH,
        STREAM
    }

    private final ResourceContext context;
    private final MemoryBudget budget;
    private final Mode mode;
    private final String commitUser;
    private final WriteFootprint footprint;
    private final TrackingFileIO fileIO;
    private final FileStoreTable table;
    private final MemoryPoolFactory poolFactory;
    private final PaimonMetricCapture paimonMetrics = new PaimonMetricCapture();
    private final List<MemoryReservation> fixed = new ArrayList<>();
    private final WriterAdmission writers;
    private final List<Handoff> pending = new ArrayList<>();
    /** Names of data files in messages that were committed or handed off: never deleted by an abort. */
    private final Set<String> published = new HashSet<>();
    private final ReentrantLock lock = new ReentrantLock();
    /** The first I/O error a data file of this write met: Paimon's cleanup may throw another one instead. */
    private final AtomicReference<IOException> firstFileError = new AtomicReference<>();
    private final TableWriteImpl<?> write;
    private final RowSize rowSize;
    private final RowShape rowShape;
    private final boolean knownBuckets;
    private volatile State state = State.OPEN;
    private volatile Thread writingThread;
    private boolean paimonClosed;

    private GovernedTableWrite(ResourceContext context, FileStoreTable table, Mode mode, String commitUser) {
        this.context = Objects.requireNonNull(context, "context");
        this.budget = context.memory();
        this.mode = mode;
        this.commitUser = commitUser;
        context.ensureOpen();
        try {
            this.footprint = WriteFootprint.plan(table, budget.capacityBytes(), context.pool().pageSize());
            this.fileIO = new TrackingFileIO(table.fileIO(), new FileListener());
            this.table =
                    FileStoreTableFactory.create(fileIO, table.location(), table.schema(), table.catalogEnvironment())
                            .copy(footprint.tableOptions());
            reserveFixed();
            configureCompaction(table);
            checkFirstWriterFits();
            this.poolFactory = new MemoryPoolFactory(context.pool());
            this.writers =
                    new WriterAdmission(
                            budget,
                            context.pool(),
                            footprint.perWriterBytes(),
                            this.table.schema().logicalPartitionType(),
                            poolFactory,
                            lock);
            this.write = newWrite();
            this.rowSize = new RowSize(this.table.rowType());
            this.rowShape = RowShape.of(this.table.name(), this.table.rowType());
            BucketMode bucketMode = this.table.bucketMode();
            this.knownBuckets = bucketMode == BucketMode.HASH_FIXED || bucketMode == BucketMode.BUCKET_UNAWARE;
            budget.setReclaimer(writers::reclaim);
            context.cancellation().onCancel(this::onCancel);
        } catch (RuntimeException | Error e) {
            fixed.forEach(MemoryReservation::close);
            state = State.DONE;
            context.close();
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
        return new GovernedTableWrite(context, table, Mode.BATCH, UUID.randomUUID().toString());
    }

    /**
     * A streaming write with {@code commitUser}: {@link #prepareCommit(boolean, long)} once per
     * checkpoint, writers kept across checkpoints. Takes the context over.
     */
    public static GovernedTableWrite stream(FileStoreTable table, String commitUser, ResourceContext context) {
        return new GovernedTableWrite(context, table, Mode.STREAM, Objects.requireNonNull(commitUser, "commitUser"));
    }

    private TableWriteImpl<?> newWrite() {
        TableWriteImpl<?> w =
                mode == Mode.BATCH
                        ? (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()
                        : (TableWriteImpl<?>) table.newStreamWriteBuilder().withCommitUser(commitUser).newWrite();
        w.withIOManager(context.ioManager());
        w.withMemoryPoolFactory(poolFactory);
        w.withCompactExecutor(context.compactionExecutor());
        w.withMetricRegistry(paimonMetrics);
        return w;
    }

    private void reserveFixed() {
        reserve("flush file writer", footprint.flushWriterBytes());
        reserve("spill I/O buffers", footprint.spillIoBytes());
    }

    /** One writer and its first pages must fit next to the fixed reservations, or the write fails now. */
    private void checkFirstWriterFits() {
        long firstWriter = (long) MIN_WRITER_PAGES * context.pool().pageSize() + footprint.perWriterBytes();
        if (budget.availableBytes() < firstWriter) {
            throw tooSmall("first writer and its " + MIN_WRITER_PAGES + " pages", firstWriter);
        }
    }

    private MemoryReservation reserve(String consumer, long bytes) {
        MemoryReservation r = budget.newReservation(consumer);
        fixed.add(r);
        if (!r.tryGrow(bytes)) {
            throw tooSmall(consumer, bytes);
        }
        return r;
    }

    /**
     * Sets the compaction threads from {@code governance.compaction.task-threads} (else the table's
     * {@code compaction.task-threads}) and reserves one compaction task's working memory, so one
     * compaction can always run; further concurrent tasks are admitted by memory.
     */
    private void configureCompaction(FileStoreTable given) {
        int threads = context.options().compactionTaskThreads(given.options());
        MemoryReservation base = reserve("compaction (one task)", footprint.compactionBytes());
        fixed.remove(base);
        context.compactionExecutor()
                .configure(
                        threads,
                        context.options().compactionMaxThreads(),
                        new CompactionAdmission(budget, footprint.compactionBytes(), base, context.pool()::releaseCached));
    }

    private ResourceExhaustedException tooSmall(String consumer, long bytes) {
        return budget.tooSmall(consumer, bytes);
    }

    /** The table as this write writes it (governed options and FileIO). */
    public FileStoreTable table() {
        return table;
    }

    public ResourceContext context() {
        return context;
    }

    /** The options this write set on the table and what it reserves outside pages. */
    public WriteFootprint footprint() {
        return footprint;
    }

    /**
     * Writes one row.
     *
     * @throws NullPointerException for a null row, {@link IllegalArgumentException} for a row that
     *     does not fit the table (wrong arity, null in a NOT NULL field, a value of the wrong class:
     *     {@link RowShape}); the row is refused before it reaches Paimon and the write stays usable
     * @throws WriteCancelledException when the write was cancelled (everything already undone)
     * @throws ResourceExhaustedException when a new writer cannot be admitted even after making room
     *     (everything already undone)
     * @throws GovernanceClosedException after prepareCommit (batch), failure or close
     */
    public void write(InternalRow row) throws Exception {
        rowShape.check(row);
        enter();
        try {
            check(State.OPEN, "write");
            if (knownBuckets) {
                int bucket = write.getBucket(row);
                admit(write.getPartition(row), bucket);
                write.write(row, bucket);
            } else {
                admit(write.getPartition(row), -1);
                write.write(row);
            }
            context.metrics().recordInput(1, rowSize.of(row));
        } catch (Throwable t) {
            throw fail(t);
        } finally {
            leave();
        }
    }

    private void admit(BinaryRow partition, int bucket) throws Exception {
        if (writers.admit(partition, bucket)) {
            context.compactionExecutor().bucketsActive(writers.size());
        }
    }

    /**
     * Batch: flushes every writer, waits for compactions and returns the commit messages. Once per
     * batch write.
     */
    public PreparedCommit prepareCommit() throws Exception {
        if (mode != Mode.BATCH) {
            throw new IllegalStateException("prepareCommit() is for batch writes; use prepareCommit(waitCompaction, id)");
        }
        return prepare(true, Long.MAX_VALUE);
    }

    /** Stream: prepares the commit of checkpoint {@code commitIdentifier}; writing may go on after. */
    public PreparedCommit prepareCommit(boolean waitCompaction, long commitIdentifier) throws Exception {
        if (mode != Mode.STREAM) {
            throw new IllegalStateException("prepareCommit(waitCompaction, id) is for stream writes; use prepareCommit()");
        }
        return prepare(waitCompaction, commitIdentifier);
    }

    private PreparedCommit prepare(boolean waitCompaction, long identifier) throws Exception {
        enter();
        long start = System.nanoTime();
        try {
            check(State.OPEN, "prepareCommit");
            if (waitCompaction && context.compactionExecutor().threadBound() > 1) {
                triggerEveryBucket();
            }
            List<CommitMessage> messages =
                    mode == Mode.BATCH ? write.prepareCommit() : write.prepareCommit(waitCompaction, identifier);
            Handoff prepared = new Handoff(messages, fileIO.drain(), identifier);
            pending.add(prepared);
            context.cancellation().throwIfCancelled();
            recordOutput(messages);
            releaseClosedWriters();
            context.metrics().recordPaimon(paimonMetrics.read());
            if (mode == Mode.BATCH) {
                state = State.PREPARED;
            }
            return prepared;
        } catch (Throwable t) {
            throw fail(t);
        } finally {
            context.metrics().recordPrepareCommit(System.nanoTime() - start);
            leave();
        }
    }

    /**
     * Paimon's prepareCommit walks the writers one by one (flush, wait, trigger, wait), so compactions of
     * different buckets never overlap inside it. Flushing every active bucket and triggering its
     * compaction first lets them run on all threads; prepareCommit then mostly waits.
     */
    private void triggerEveryBucket() throws Exception {
        Map<BinaryRow, List<Integer>> active = ((AbstractFileStoreWrite<?>) write.getWrite()).getActiveBuckets();
        for (Map.Entry<BinaryRow, List<Integer>> partition : active.entrySet()) {
            for (int bucket : partition.getValue()) {
                context.cancellation().throwIfCancelled();
                write.compact(partition.getKey(), bucket, false);
            }
        }
    }

    private void recordOutput(List<CommitMessage> messages) {
        List<DataFileMeta> files = CommitFiles.dataFiles(messages);
        context.metrics().recordOutput(files.size(), CommitFiles.bytes(files));
    }

    /** Batch writers are all done after prepareCommit; stream writers Paimon closed are gone. */
    private void releaseClosedWriters() {
        if (mode == Mode.BATCH) {
            writers.releaseAll();
        } else {
            writers.releaseClosed(((AbstractFileStoreWrite<?>) write.getWrite()).getActiveBuckets());
        }
    }

    /**
     * Cancels the write from any thread. A commit that starts after this returns publishes nothing;
     * a commit already under way may finish. When the write is idle, everything is given back on
     * this thread before this returns.
     *
     * @return whether this call cancelled it (false when it already was)
     */
    public boolean cancel(String reason) {
        CANCELLING_HERE.set(Boolean.TRUE);
        boolean cancelled;
        try {
            cancelled = context.cancellation().cancel(reason);
        } finally {
            CANCELLING_HERE.remove();
        }
        cleanUpIfIdle();
        return cancelled;
    }

    /**
     * The token's listener: runs once, on the cancelling thread, and never blocks. Wakes a writing
     * thread that waits for a compaction (the task is interrupted or cancelled, its future
     * completes). A cancel that did not come through {@link #cancel} (the engine's signal, the
     * context's token) finds an idle write cleaned up on a short-lived thread of its own.
     */
    private void onCancel() {
        context.compactionExecutor().abort();
        if (CANCELLING_HERE.get() == null) {
            Thread cleaner = new Thread(this::cleanUpIfIdle, "paimon-gov-cancel-" + context.name());
            cleaner.setDaemon(true);
            cleaner.start();
        }
    }

    private void cleanUpIfIdle() {
        if (lock.isHeldByCurrentThread()) {
            return; // cancelled from inside a call of this write: the call sees it at its next check
        }
        if (lock.tryLock()) {
            try {
                if (state != State.DONE) {
                    releaseAfterFailure();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** A snapshot of the write's metrics (the final one once closed). */
    public MetricsSnapshot metrics() {
        return context.snapshot();
    }

    /**
     * Closes the write: aborts prepared messages that were neither committed nor handed off, deletes
     * the spill scope and gives all memory back. Idempotent.
     */
    @Override
    public void close() throws Exception {
        lock.lock();
        try {
            if (state != State.DONE) {
                Exception error = release(true);
                if (error != null) {
                    throw error;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void enter() {
        lock.lock();
        writingThread = Thread.currentThread();
    }

    /** Checks, inside a call, that the write may take it. */
    private void check(State expected, String call) {
        if (state == State.DONE && context.cancellation().isCancelled()) {
            throw new WriteCancelledException(context.cancellation().reason().orElse("cancelled"));
        }
        if (state != expected) {
            String why = state == State.PREPARED ? "prepared (a batch write prepares once)" : "closed";
            throw new GovernanceClosedException("cannot " + call + ": the write is " + why);
        }
        cancelIfInterrupted(null);
        context.cancellation().throwIfCancelled();
    }

    /**
     * Cancels the write when the calling (writing) thread was interrupted or {@code failure} is an
     * interruption. The interrupt flag stays as it is. Runs inside a call, so the cancel cleans
     * nothing up itself: the call's failure path does.
     */
    private void cancelIfInterrupted(Throwable failure) {
        if (context.cancellation().isCancelled()) {
            return;
        }
        if (Thread.currentThread().isInterrupted() || isInterruption(failure)) {
            CANCELLING_HERE.set(Boolean.TRUE);
            try {
                context.cancellation().cancel(INTERRUPTED);
            } finally {
                CANCELLING_HERE.remove();
            }
        }
    }

    private static boolean isInterruption(Throwable t) {
        return find(t, InterruptedException.class) != null
                || find(t, ClosedByInterruptException.class) != null
                || find(t, InterruptedIOException.class) != null;
    }

    /** Adds the first data-file I/O error to {@code t} when Paimon's cleanup replaced it with another. */
    private void attachFileError(Throwable t) {
        IOException first = firstFileError.get();
        if (first == null) {
            return;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c == first || Arrays.asList(c.getSuppressed()).contains(first)) {
                return;
            }
        }
        t.addSuppressed(first);
    }

    private void leave() {
        writingThread = null;
        lock.unlock();
    }

    /**
     * Turns a failure into the error the caller gets, after undoing the write: the cancellation if
     * the write was cancelled, a budget failure as itself, Paimon failing for want of a page as a
     * {@link ResourceExhaustedException} (with Paimon's error as its cause), anything else
     * unchanged.
     */
    private RuntimeException fail(Throwable t) throws Exception {
        if (t instanceof GovernanceClosedException closed) {
            return closed;
        }
        cancelIfInterrupted(t);
        attachFileError(t);
        // Built before the release, so that it carries the budget's numbers of the moment.
        ResourceExhaustedException denied =
                find(t, ResourceExhaustedException.class) == null && isPageDenied(t) ? pageDenied(t) : null;
        if (state != State.DONE) {
            Exception error = release(false);
            if (error != null && error != t) {
                t.addSuppressed(error);
            }
        }
        if (context.cancellation().isCancelled()) {
            WriteCancelledException cancelled =
                    t instanceof WriteCancelledException w ? w : new WriteCancelledException(context.cancellation().reason().orElse("cancelled"), t);
            return cancelled;
        }
        ResourceExhaustedException exhausted = find(t, ResourceExhaustedException.class);
        if (exhausted != null) {
            return exhausted;
        }
        if (denied != null) {
            return denied;
        }
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw (Exception) t;
    }

    /**
     * Paimon's sort buffer must have a page to (re)start a writer; when the pool has none it fails
     * with "Error getting first segment", caused by this EOFException. It is the engine refusing
     * memory, so the caller gets it as {@link ResourceExhaustedException}.
     */
    private static boolean isPageDenied(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EOFException && String.valueOf(c.getMessage()).contains("memorySource depleted")) {
                return true;
            }
        }
        return false;
    }

    private ResourceExhaustedException pageDenied(Throwable cause) {
        ResourceExhaustedException denied =
                budget.exhausted("write buffer (a writer needs a page to go on and the engine granted none)", context.pool().pageSize());
        denied.initCause(cause);
        return denied;
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /**
     * Gives everything back in the order the class comment gives: compaction stopped, the Paimon
     * write closed (pages are live inside it until then), uncommitted messages aborted and data
     * files deleted, estimate reservations returned, then the context (spill scope, pages, engine
     * resources).
     *
     * @param orderly false after a failure or cancel: running compactions are interrupted first
     * @return the first error met; every step ran regardless
     */
    private Exception release(boolean orderly) {
        // Waiting for compaction threads and closing files fail at once on an interrupted thread.
        boolean interrupted = Thread.interrupted();
        try {
            return releaseAll(orderly);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Exception releaseAll(boolean orderly) {
        state = State.DONE;
        context.metrics().recordPaimon(paimonMetrics.read());
        if (!orderly || context.cancellation().isCancelled()) {
            context.compactionExecutor().abort();
        }
        Exception first = closePaimon(null);
        for (Handoff h : pending) {
            first = h.abortIfOwned(first);
        }
        pending.clear();
        first = deleteFiles(fileIO.uncommitted(), first);
        writers.releaseAll();
        fixed.forEach(MemoryReservation::close);
        try {
            context.close();
        } catch (RuntimeException e) {
            first = add(first, e);
        }
        return first;
    }

    private void releaseAfterFailure() {
        Exception error = release(false);
        if (error != null) {
            LOG.warn("cleaning up write '{}' after a failure or cancel met an error", context.name(), error);
        }
    }

    private Exception closePaimon(Exception first) {
        if (paimonClosed) {
            return first;
        }
        try {
            write.close();
        } catch (Exception e1) {
            try {
                write.close();
                LOG.warn("closing Paimon's write of '{}' failed once; the second close finished it", context.name(), e1);
            } catch (Exception e2) {
                e1.addSuppressed(e2);
                first = add(first, e1);
            }
        }
        paimonClosed = true;
        context.compactionExecutor().stop(30_000);
        return first;
    }

    /** Deletes data files that exist still; Paimon's own cleanup has usually removed them. */
    private Exception deleteFiles(List<Path> paths, Exception first) {
        for (Path path : paths) {
            try {
                fileIO.delete(path, false);
            } catch (Exception e) {
                first = add(first, e);
            }
        }
        return first;
    }

    private static Exception add(Exception first, Exception next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Prepared messages, the data files created for them, and who owns them. */
    private final class Handoff implements PreparedCommit {
        private final List<CommitMessage> messages;
        private final List<Path> files;
        private final long identifier;
        private boolean owned = true;
        private boolean aborted;

        Handoff(List<CommitMessage> messages, List<Path> files, long identifier) {
            this.messages = List.copyOf(messages);
            this.files = files;
            this.identifier = identifier;
        }

        @Override
        public List<CommitMessage> messages() {
            return messages;
        }

        @Override
        public void commit() throws Exception {
            lock.lock();
            try {
                take();
                Long before = table.snapshotManager().latestSnapshotIdFromFileSystem();
                fileIO.startCommit();
                try {
                    commitNow();
                    fileIO.endCommit();
                } catch (Exception | Error e) {
                    settle(e, before, fileIO.endCommit());
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * A commit threw: returns when its snapshot is in the table anyway; otherwise deletes what it
         * wrote (data files, manifests) and rethrows. Undecided (the snapshots cannot be read):
         * rethrows with the reason added, deleting nothing.
         */
        private void settle(Throwable error, Long before, List<Path> manifests) throws Exception {
            boolean landed;
            try {
                landed = landed(before);
            } catch (IOException | RuntimeException e) {
                error.addSuppressed(e);
                LOG.warn("the commit of '{}' failed and whether it landed cannot be told: its files are kept", context.name(), error);
                throw rethrow(error);
            }
            if (landed) {
                LOG.warn("the commit of '{}' threw, but its snapshot is in the table: the commit is published", context.name(), error);
                Exception cleanup = deleteFiles(unreferenced(before, manifests), null);
                if (cleanup != null) {
                    LOG.warn("cannot delete the manifest files of the failed attempts of the commit of '{}'", context.name(), cleanup);
                }
                return;
            }
            owned = true;
            published.removeAll(CommitFiles.names(messages));
            Exception cleanup = abortIfOwned(null, true);
            cleanup = deleteFiles(manifests, cleanup);
            if (cleanup != null) {
                error.addSuppressed(cleanup);
            }
            LOG.warn("the commit of '{}' failed and did not land: its data and manifest files were deleted", context.name());
            throw rethrow(error);
        }

        /** Whether a snapshot after {@code before} carries this write's commit user and this identifier. */
        private boolean landed(Long before) throws IOException {
            SnapshotManager snapshots = table.snapshotManager();
            Long latest = snapshots.latestSnapshotIdFromFileSystem();
            if (latest == null) {
                return false;
            }
            for (long id = before == null ? Snapshot.FIRST_SNAPSHOT_ID : before + 1; id <= latest; id++) {
                Snapshot s;
                try {
                    s = snapshots.tryGetSnapshot(id);
                } catch (FileNotFoundException expired) {
                    continue;
                }
                if (commitUser.equals(s.commitUser()) && s.commitIdentifier() == identifier) {
                    return true;
                }
            }
            return false;
        }

        /**
         * The manifest files among {@code written} that no snapshot since {@code before} references:
         * what Paimon's failed attempts of a commit that finally landed left behind. Nothing when the
         * snapshots cannot be read.
         */
        private List<Path> unreferenced(Long before, List<Path> written) {
            try {
                Set<String> used = new HashSet<>();
                SnapshotManager snapshots = table.snapshotManager();
                ManifestList lists = table.store().manifestListFactory().create();
                Long latest = snapshots.latestSnapshotIdFromFileSystem();
                for (long id = before == null ? Snapshot.FIRST_SNAPSHOT_ID : before + 1; latest != null && id <= latest; id++) {
                    Snapshot s = snapshots.tryGetSnapshot(id);
                    used.add(s.baseManifestList());
                    used.add(s.deltaManifestList());
                    used.add(s.changelogManifestList());
                    used.add(s.indexManifest());
                    lists.readAllManifests(s).forEach(m -> used.add(m.fileName()));
                    lists.readChangelogManifests(s).forEach(m -> used.add(m.fileName()));
                }
                return written.stream().filter(p -> !used.contains(p.getName())).toList();
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot tell which manifest files the commit of '{}' left unused; keeping them", context.name(), e);
                return List.of();
            }
        }

        private void commitNow() throws Exception {
            if (mode == Mode.BATCH) {
                // The write's own commit user (not a builder's random one), so a failed commit can be
                // looked for in the snapshots. Otherwise what BatchWriteBuilder.newCommit() makes.
                try (TableCommitImpl commit = table.newCommit(commitUser)) {
                    commit.ignoreEmptyCommit(
                            Options.fromMap(table.options()).getOptional(CoreOptions.SNAPSHOT_IGNORE_EMPTY_COMMIT).orElse(true));
                    commit.commit(messages);
                }
            } else {
                try (var commit = table.newStreamWriteBuilder().withCommitUser(commitUser).newCommit()) {
                    commit.commit(identifier, messages);
                }
            }
        }

        /** Takes the messages out of the write's care: it will neither abort nor delete them. */
        private void take() {
            ensureOwned();
            owned = false;
            pending.remove(this);
            published.addAll(CommitFiles.names(messages));
        }

        /** A cancelled write's messages were aborted: say so as the cancellation. */
        private void ensureOwned() {
            cancelIfInterrupted(null);
            if (context.cancellation().isCancelled()) {
                if (state != State.DONE) {
                    releaseAfterFailure();
                }
                throw new WriteCancelledException(context.cancellation().reason().orElse("cancelled"));
            }
            if (!owned) {
                throw new GovernanceClosedException(
                        aborted
                                ? "the write is closed; these commit messages were aborted"
                                : "these commit messages were already committed or handed off");
            }
        }

        @Override
        public List<CommitMessage> handOff() {
            lock.lock();
            try {
                take();
                return messages;
            } finally {
                lock.unlock();
            }
        }

        Exception abortIfOwned(Exception first) {
            return abortIfOwned(first, false);
        }

        /** @param failedCommit the messages' own commit failed: their files are deleted even though taken */
        private Exception abortIfOwned(Exception first, boolean failedCommit) {
            if (!owned) {
                return first;
            }
            owned = false;
            aborted = true;
            try (var commit = table.newBatchWriteBuilder().newCommit()) {
                commit.abort(messages);
            } catch (Exception e) {
                first = add(first, e);
            }
            // A stream compaction running at this prepare may be reported in a later, published one.
            List<Path> mine = failedCommit ? files : files.stream().filter(f -> !published.contains(f.getName())).toList();
            return deleteFiles(mine, first);
        }
    }

    /**
     * Data files: cancellation check at creation, flush timing for the writing thread's files, and
     * the bucket of a compaction task from the files it touches.
     */
    private final class FileListener implements TrackingFileIO.Listener {
        @Override
        public void touched(Path path) {
            Path dir = path.getParent();
            if (dir != null) {
                context.compactionExecutor().tracker().fileTouched(dir.toString());
            }
        }

        @Override
        public void beforeCreate(Path path) {
            context.cancellation().throwIfCancelled();
        }

        @Override
        public void written(Path path, long bytes, long nanos, Thread writer) {
            if (writer == writingThread && path.getName().startsWith("data-")) {
                context.metrics().recordFlush(nanos);
            }
        }

        @Override
        public void failed(Path path, IOException error) {
            firstFileError.compareAndSet(null, error);
        }
    }

    private static Exception rethrow(Throwable error) {
        if (error instanceof Error e) {
            throw e;
        }
        return (Exception) error;
    }
}
