package io.paimongov.reliability;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * One governed write of a fuzz iteration: its own table, its own {@link ResourceContext} (opened
 * through an {@link ObservedProvider} of its own, so every grant of its allocator is seen with its
 * budget) and its own thread; the write's calls and how they ended, for the checks.
 *
 * <p>Thread-safety: {@link #run} runs on the write's thread; {@link #cancel} on the events thread;
 * what they record is volatile or concurrent, and read once the write has {@link #ended()}.
 */
final class FuzzWrite {

    final FuzzCase.WritePlan plan;
    final FuzzRows rows;
    final FileStoreTable table;
    final ObservedProvider provider;
    final Set<String> filesBefore;
    private final Path warehouse;
    /** Grants after which the write's allocator held more than the write's budget. */
    final List<String> overBudget = new CopyOnWriteArrayList<>();
    private final AtomicInteger written = new AtomicInteger();
    private volatile GovernedTableWrite write;
    private volatile boolean preparing;
    private volatile boolean commitStarting;
    private volatile boolean ended;
    volatile ResourceContext context;
    volatile boolean committed;
    volatile Throwable error;
    volatile Throwable closeError;
    /** Whether the events thread cancelled the write, and whether its commit had started when the cancel returned. */
    volatile boolean cancelled;
    volatile boolean commitStartedAtCancel;
    /** Whether the events thread has cancelled, or tried to; only that thread reads and sets it. */
    boolean cancelAttempted;

    FuzzWrite(FuzzCase.WritePlan plan, Allocator allocator, Path warehouse) throws Exception {
        this.plan = plan;
        this.rows = FuzzRows.of(plan);
        this.warehouse = warehouse;
        Map<String, String> options = new HashMap<>(plan.mode().options(plan.buckets()));
        options.put("file.format", plan.format());
        this.table = TestTables.createTable(warehouse, "t" + plan.index(), options, plan.mode().primaryKey());
        this.filesBefore = Tables.files(table);
        this.provider = new ObservedProvider(allocator.provider());
    }

    /** The write's runtime options, as drawn. */
    GovernanceOptions options(Allocator allocator, Path spillRoot) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(plan.budgetBytes()));
        values.put(GovernanceOptions.PAGE_SIZE, plan.pageSize());
        values.put(GovernanceOptions.SPILL_MAX_BYTES, plan.spillMax());
        values.put(GovernanceOptions.COMPACTION_TASK_THREADS, Integer.toString(plan.taskThreads()));
        if (allocator.setsSpillDirs()) {
            values.put(GovernanceOptions.SPILL_DIRS, spillRoot.toString());
        }
        return GovernanceOptions.of(values);
    }

    /** Opens, writes every row, prepares, commits and closes; records how each step ended. Never throws. */
    void run(StandaloneEngine engine, GovernanceOptions options) {
        GovernedTableWrite w = null;
        try {
            context = ResourceContext.open("w" + plan.index(), provider, options, engine.environment());
            w = GovernedTableWrite.batch(table, context);
            write = w;
            for (InternalRow row : rows.rows()) {
                w.write(row);
                written.incrementAndGet();
            }
            preparing = true;
            PreparedCommit prepared = w.prepareCommit();
            commitStarting = true;
            prepared.commit();
            committed = true;
        } catch (Throwable t) {
            error = t;
        } finally {
            try {
                if (w != null) {
                    w.close();
                } else if (context != null) {
                    context.close();
                }
            } catch (Throwable t) {
                closeError = t;
            }
            Thread.interrupted();
            ended = true;
        }
    }

    /** The table as a fresh reader finds it. */
    FileStoreTable reopen() throws Exception {
        return TestTables.open(warehouse.toUri().toString(), "t" + plan.index());
    }

    /** Whether the write has come to its cancel point: its row, or the start of prepareCommit. */
    boolean atCancelPoint() {
        int at = plan.cancelAtRow();
        return at >= 0 && (at < plan.rows() ? written.get() >= at : preparing);
    }

    /** Rows the write accepted so far. */
    int written() {
        return written.get();
    }

    /** Whether {@link #run} returned. */
    boolean ended() {
        return ended;
    }

    /** Whether the write is open, so a cancel reaches it. */
    boolean opened() {
        return write != null;
    }

    /**
     * Cancels the write from the events thread, and notes whether its commit had started when the
     * cancel returned: a commit that starts after the cancel returned must publish nothing.
     */
    void cancel() {
        boolean first = write.cancel("fuzz: cancelled after row " + written.get());
        commitStartedAtCancel = commitStarting;
        cancelled = first;
    }

    /** The error's class, with the resource for {@link ResourceExhaustedException}. */
    static String errorType(Throwable error) {
        return error.getClass().getSimpleName() + (error instanceof ResourceExhaustedException e ? "(" + e.resource() + ")" : "");
    }

    /** The outcome in one line. */
    String outcome() {
        String end = committed ? "COMMITTED" : error == null ? "NOT ENDED" : errorType(error);
        return end + (cancelled ? " (cancelled)" : "") + (closeError == null ? "" : ", close threw " + closeError.getClass().getSimpleName());
    }
}
