package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.compaction.CompactionAdmission;
import io.paimongov.runtime.internal.formats.ParquetZstd;
import io.paimongov.runtime.config.Sizes;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.memory.Reclaimer;
import io.paimongov.runtime.internal.metrics.PaimonMetricCapture;
import io.paimongov.spi.CleanupException;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens one governed write and holds what the opening set up, which the write's parts ({@link
 * WritePath}, {@link WriteFailures}, {@link WriteRelease}, {@link WriteCancellation}, {@link
 * Handoff}) share.
 *
 * <p>How it opens. A copy of the table is made whose options keep the writer's memory bounded
 * ({@link WriteFootprint}) and whose FileIO tracks the data files this write creates; the fixed
 * estimates (flush file writer, spill I/O buffers) are reserved; one writer and its first {@value
 * GovernedTableWrite#MIN_WRITER_PAGES} pages must fit next to them and room for one compaction task
 * (reserved only when a task starts, {@link CompactionAdmission}), or the
 * write fails now with {@link ResourceExhaustedException}; then the Paimon write is made and wired
 * (memory pool factory, I/O manager, compaction executor, metric registry). When any step throws,
 * what was reserved is returned and the context is closed before the error propagates.
 *
 * <p>Its fields are final: the parts that change as the write runs each own their state, and the
 * classes of the write change it only through them: {@link #lifecycle} (where the write is),
 * {@link #commits} (prepared messages and published files), {@link #writers} (open and closed
 * writers, their reservations), {@link #fixed} (the fixed reservations), {@link #sorted} (the
 * shared sort's writers).
 *
 * <p><b>Thread-safety:</b> built on the opening thread. Afterwards every call of the write runs
 * holding {@link #callLock}; the parts marked {@code guarded by callLock} are touched only then.
 * {@link #lifecycle} may be read without the lock (the cancel path does).
 */
final class OpenedWrite {

    private static final Logger LOG = LoggerFactory.getLogger(OpenedWrite.class);

    enum Mode {
        BATCH,
        STREAM
    }

    final ResourceContext context;
    final MemoryBudget budget;
    final Mode mode;
    final String commitUser;
    /** How the engine spreads the table's rows over writes; this write gets some channels' rows. */
    final WriteChannels channels;
    /** Whether the write is an overwrite's data: the table's files are ignored. */
    final boolean overwrite;

    /**
     * Whether this write picks the buckets of a dynamic-bucket or cross-partition table itself: when
     * no assigner stage runs before it ({@link WriteChannels#assignerStage()}); otherwise it gets its
     * rows with their buckets ({@link GovernedAssigner}).
     */
    boolean assignsBuckets() {
        return !channels.assignerStage();
    }
    final WriteFootprint footprint;
    /** The table's bucket mode and features ({@link TableMode}); refused modes fail the opening. */
    final TableMode tableMode;
    final DataFileListener files;
    final TrackingFileIO fileIO;
    /** The table as this write writes it (governed options and FileIO). */
    final FileStoreTable table;
    final PaimonMetricCapture paimonMetrics = new PaimonMetricCapture();
    final Writers writers;
    final TableWriteImpl<?> write;
    /** Writers waiting in the shared sort. Guarded by callLock. */
    final SortedWriters sorted;
    /** The key index of a cross-partition update table; null for other modes. Guarded by callLock. */
    final CrossPartitionIndex crossPartition;
    /** Held by every call of the write, by commit and hand-off, and by the release. */
    final ReentrantLock callLock = new ReentrantLock();
    /** The fixed estimate reservations. Guarded by callLock (after the opening). */
    final FixedReservations fixed;
    /** Gives compaction tasks their memory when they start. */
    private final CompactionAdmission compaction;
    /** {@link #makeRoom}, made once: {@link #serveCompaction} runs on every write call. */
    private final Reclaimer roomForCompaction = this::makeRoom;
    /** What the lookup cache holds ({@link ChargedLookupCache}); null for tables that look nothing up. */
    private final MemoryReservation lookupCache;
    /** The fixed reservation of write-buffer spill channels (one merge at a time), set at open. */
    private final MemoryReservation spillIo;
    /** Prepared messages the write still owns, and the files of those it gave away. Guarded by callLock. */
    final CommitLedger commits = new CommitLedger();
    final WriteLifecycle lifecycle = new WriteLifecycle();

    OpenedWrite(
            ResourceContext context, FileStoreTable table, Mode mode, String commitUser, WriteChannels channels, boolean overwrite) {
        this.context = Objects.requireNonNull(context, "context");
        this.budget = context.budget();
        this.fixed = new FixedReservations(budget);
        this.mode = mode;
        this.commitUser = commitUser;
        this.channels = channels;
        this.overwrite = overwrite;
        context.ensureOpen();
        try {
            this.tableMode = TableMode.of(table);
            if (overwrite && tableMode.kind() == TableMode.Kind.PRIMARY_KEY_CROSS_PARTITION) {
                throw new UnsupportedTableModeException(table.fullName(), "an overwrite of a cross-partition update table",
                        "a key of the overwritten partitions may live in a partition the overwrite keeps, and the governed"
                                + " write does not decide which copy wins; delete the partitions and insert instead");
            }
            // Planned on the share: what a write borrows comes and goes, the plan stays.
            this.footprint = WriteFootprint.plan(table, budget.shareBytes(), context.pool().pageSize());
            this.files = new DataFileListener(context);
            this.fileIO = new TrackingFileIO(table.fileIO(), files);
            this.table =
                    FileStoreTableFactory.create(fileIO, table.location(), table.schema(), table.catalogEnvironment())
                            .copy(footprint.tableOptions());
            // Parquet's zstd streams keep each page's column chunk on the heap until a finalizer runs.
            ParquetZstd.install(this.table.options());
            checkMinimumBudget();
            fixed.reserve(ConsumerKind.WRITER, "flush file writer", footprint.flushWriterBytes());
            this.spillIo = fixed.reserve(ConsumerKind.SPILL_IO, "spill I/O buffers", footprint.spillIoBytes());
            this.lookupCache =
                    tableMode.lookupCacheBytes(this.table.coreOptions()) > 0 ? fixed.reserve(ConsumerKind.LOOKUP, "lookup cache", 0) : null;
            this.compaction = configureCompaction(table);
            checkFirstWriterFits();
            MemoryPoolFactory poolFactory = new TieredWriteBuffers(
                    context.pool(), context.ioManager(), spillIo, footprint.spillBlockBytes(), footprint.spillRunCodec(),
                    context.token()::throwIfCancelledIO);
            long freeBytes = budget.shareBytes() - budget.reservedBytes() - footprint.compactionBytes();
            this.write = newWrite(poolFactory);
            chargeLookupCache(write);
            this.writers = Writers.of(
                    budget,
                    context.pool(),
                    footprint.plusPerWriter(tableMode.extraPerWriterBytes(context.pool().pageSize())),
                    freeBytes,
                    this.table.schema().logicalPartitionType(),
                    poolFactory,
                    (AbstractFileStoreWrite<?>) write.getWrite(),
                    callLock,
                    context.recorder(),
                    context.options().earlyCloseMinBytes(),
                    context.options().sharedSort());
            this.sorted = new SortedWriters(this);
            this.crossPartition = tableMode.kind() == TableMode.Kind.PRIMARY_KEY_CROSS_PARTITION && assignsBuckets()
                    ? new CrossPartitionIndex(this.table, context, footprint, channels)
                    : null;
        } catch (RuntimeException | Error e) {
            abandon(e);
            throw e;
        }
    }

    /**
     * Undoes a failed opening: the fixed reservations are returned and the context closed, each step
     * even when another failed; a failed step is added to {@code failure}, the opening's own error.
     */
    void abandon(Throwable failure) {
        CleanupException.Steps steps = new CleanupException.Steps("write '" + context.name() + "' that failed to open");
        fixed.giveBack(steps);
        lifecycle.done();
        context.recorder().recordCleanupFailures(steps.failures());
        steps.run("close the resource context", context::close);
        CleanupException failed = steps.toException();
        if (failed != null) {
            failure.addSuppressed(failed);
        }
    }

    private TableWriteImpl<?> newWrite(MemoryPoolFactory poolFactory) {
        TableWriteImpl<?> w =
                mode == Mode.BATCH
                        ? (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()
                        : (TableWriteImpl<?>) table.newStreamWriteBuilder().withCommitUser(commitUser).newWrite();
        w.withIOManager(context.ioManager());
        w.withIgnorePreviousFiles(overwrite);
        w.withMemoryPoolFactory(poolFactory);
        w.withCompactExecutor(context.compactionExecutor());
        w.withMetricRegistry(paimonMetrics);
        return w;
    }

    /**
     * Gives each bucket its own lookup caches, charged as they fill ({@link BucketLookupCaches}).
     * Where this Paimon's write makes its compaction managers elsewhere, the one cache Paimon shares
     * by all buckets stays: its whole size is reserved now, and the write compacts on one thread,
     * the only way Paimon's shared cache is safe.
     */
    private void chargeLookupCache(TableWriteImpl<?> paimonWrite) {
        if (lookupCache == null) {
            return;
        }
        CoreOptions core = table.coreOptions();
        if (BucketLookupCaches.install(paimonWrite.getWrite(), core, lookupCache)) {
            return;
        }
        long whole = tableMode.lookupCacheBytes(core);
        if (!lookupCache.tryGrow(whole)) {
            throw budget.tooSmall("lookup cache", whole);
        }
        if (context.compactionExecutor().threadBound() > 1) {
            LOG.warn("write '{}': this Paimon's write shares one lookup cache by all buckets; compacting on one thread", context.name());
            context.compactionExecutor().configure(1, 1, context.options().compactionStopMillis(), compaction, roomForCompaction);
        }
    }

    /**
     * The budget must hold the whole minimum for this table (the fixed reservations and one writer
     * with its first pages): checked at once, so that the error names every part and the budget that
     * opens, not only the next reservation that was short.
     */
    private void checkMinimumBudget() {
        long firstWriter =
                (long) GovernedTableWrite.MIN_WRITER_PAGES * context.pool().pageSize() + footprint.perWriterBytes();
        long minimum = footprint.flushWriterBytes() + footprint.spillIoBytes() + footprint.compactionBytes() + firstWriter;
        if (budget.shareBytes() < minimum) {
            throw budget.tooSmall(
                    "this table's minimum: flush file writer " + Sizes.format(footprint.flushWriterBytes())
                            + " + spill I/O buffers " + Sizes.format(footprint.spillIoBytes())
                            + " + compaction (one task) " + Sizes.format(footprint.compactionBytes())
                            + " + first writer and its " + GovernedTableWrite.MIN_WRITER_PAGES + " pages "
                            + Sizes.format(firstWriter),
                    minimum);
        }
    }

    /**
     * One writer and its first pages must fit next to the fixed reservations and room for one
     * compaction task, or the write fails now.
     */
    private void checkFirstWriterFits() {
        long firstWriter =
                (long) GovernedTableWrite.MIN_WRITER_PAGES * context.pool().pageSize() + footprint.perWriterBytes();
        if (budget.shareBytes() - budget.reservedBytes() - footprint.compactionBytes() < firstWriter) {
            throw budget.tooSmall("first writer and its " + GovernedTableWrite.MIN_WRITER_PAGES + " pages", firstWriter);
        }
    }

    /**
     * Sets the compaction threads from {@code governance.compaction.task-threads} (else the table's
     * {@code compaction.task-threads}) and the admission that gives each task its working memory
     * when it starts ({@link CompactionAdmission}); the minimum budget holds one task, and the
     * writers' share leaves room for it. A task reading larger row groups may take up to all but
     * the fixed reservations and one writer ({@link CompactionTaskMemory}).
     */
    private CompactionAdmission configureCompaction(FileStoreTable given) {
        int threads = context.options().compactionTaskThreads(given.options());
        long firstWriter = (long) GovernedTableWrite.MIN_WRITER_PAGES * context.pool().pageSize() + footprint.perWriterBytes();
        long taskRoom = budget.shareBytes() - budget.reservedBytes() - firstWriter;
        CompactionAdmission admission = new CompactionAdmission(
                budget, new CompactionTaskMemory(footprint, budget, taskRoom), context.pool()::releaseCached);
        context.compactionExecutor().configure(threads, context.options().compactionMaxThreads(), context.options().compactionStopMillis(),
                admission, roomForCompaction);
        return admission;
    }

    /**
     * Frees budget for a compaction task: cached pages, then, holding the call lock (the writing
     * thread inside a call, or any thread while the write is idle), the largest write buffers and
     * the shared sort's pages. Without the lock only cached pages.
     */
    long makeRoom(long bytes) throws Exception {
        if (!callLock.tryLock()) {
            return context.pool().releaseCached();
        }
        try {
            long freed = writers.flushes().reclaim(bytes);
            return freed >= bytes ? freed : freed + sorted.spillForRoom();
        } finally {
            callLock.unlock();
        }
    }

    /** Makes room for compaction tasks waiting for memory; the writing thread, at the start of a call. */
    void serveCompaction() throws Exception {
        compaction.serveWaiting(roomForCompaction);
    }

    /**
     * The write's safe point in a shared memory, on the writing thread at the start of every call:
     * when the pool took capacity back and the write holds more than its capacity, it gives the
     * difference back, cached pages first; Paimon flushes or spills its largest buffers once per
     * request of the pool ({@link MemoryBudget#takeReclaimRequest()}), so that a debt the write
     * cannot pay does not flush a writer at every row. Two volatile reads when nothing is owed.
     */
    void giveBackOwed() throws Exception {
        long owed = budget.owedBytes();
        if (owed <= 0) {
            return;
        }
        if (budget.takeReclaimRequest()) {
            makeRoom(owed);
        } else {
            context.pool().releaseCached();
        }
    }

    /** Starts a call of the write: takes the call lock and marks this thread as the writing one. */
    void enter() {
        callLock.lock();
        files.writingThread(Thread.currentThread());
    }

    void leave() {
        callLock.unlock();
    }
}
