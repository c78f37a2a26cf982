package io.paimongov.tck;

import io.paimongov.spi.WriteCancelledException;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.CommitFiles;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * One governed write of a {@link Workload} in a {@link TckSubject}, with at most one event (a
 * cancel, an injected failure, an abort), and everything the rules judge afterwards: the outcome,
 * the metrics, the cancel latency, what the spill scope looked like, and what was left behind.
 */
final class TckRun {

    enum Event {
        NONE,
        CANCEL_AT_ROW,
        CANCEL_IN_PREPARE,
        ENGINE_CANCEL_AT_ROW,
        /** The writing thread stops before row {@code at}; the cancel comes while the write is idle, so the cancelling thread releases it. */
        CANCEL_IDLE,
        /** The cancel comes {@code at} ms after the engine's compaction factory made its first thread. */
        CANCEL_AT_COMPACTION,
        FAIL_ALLOCATION,
        ABORT
    }

    enum Outcome {
        COMMITTED,
        ABORTED,
        CANCELLED,
        FAILED
    }

    /** An event and where it happens: a row index, an allocation count or milliseconds (into prepare, or after compaction began). */
    record Plan(Event event, int at) {
        static Plan none() {
            return new Plan(Event.NONE, 0);
        }
    }

    Outcome outcome;
    Throwable error;
    /** What {@code write.close()} threw, judged by the rule ({@link #closeFailure}); null when nothing. */
    Throwable closeError;
    MetricsSnapshot metrics;
    ResourceContext context;
    FileStoreTable table;
    long cancelLatencyNanos = -1;
    /** Rows written when a row-triggered cancel fired; -1 when it never fired. */
    int rowsAtCancel = -1;
    int totalRows;
    int rowsWritten;
    long messageFiles;
    long messageBytes;
    long expectedInputBytes;
    Path scope;
    String scopePermissions;
    long peakScopeBytes;
    /** Distinct spill files ({@code *.channel}) the sampler saw in the scope while the write ran. */
    final Set<String> spillFilesSeen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Page allocations the write asked for (every allocate() call, the injected one included). */
    int allocations;
    /** The failure the kit injected, when it fired; null otherwise. */
    RuntimeException injected;
    /** Threads the engine's compaction factory made while the write ran. */
    int compactionThreadsMade;
    /**
     * After a commit, before close (nothing runs then): the snapshot, and what the write's allocator
     * held then as the kit counted it ({@link Held}): pages, reserved bytes, both.
     */
    MetricsSnapshot committedSnapshot;
    long pageBytesAtCommit = -1;
    long reservedBytesAtCommit = -1;
    long heldAtCommit = -1;
    /** The most the write's allocator held at once, pages and reservations, as the kit counted it. */
    long peakHeldBytes;
    /** Data files this write added to the table's directory, counted on disk after the commit, and their bytes. */
    long tableFiles;
    long tableFileBytes;
    private volatile boolean cancelReturned;
    /** What the subject and the table held before the write opened: what is new after it was left behind. */
    private WriteBaseline before;
    /** The snapshots the sampler took while the write ran, judged against the kit's own counts; null when the write never ran. */
    LiveSnapshots live;
    /** The write's budget as the kit configured it (governance.memory.budget). */
    private long budgetBytes;
    /** What the write's allocator holds, as the kit counts it. */
    private Held held;
    /** Filled by the rule that ran it: what was left, what the table holds, engine violations. */
    List<String> problems = List.of();

    /** The problems that mention any of {@code words}: what one rule judges of all that was left behind. */
    List<String> problemsAbout(String... words) {
        return problems.stream().filter(p -> Arrays.stream(words).anyMatch(p::contains)).toList();
    }
    java.util.Map<Long, Workload.Value> content = java.util.Map.of();
    long engineViolations;
    long capacityViolations;
    /** The largest capacityBytes() an allocator of the write stated. */
    long capacityBytes;
    boolean scopeUnderRoots;

    private TckRun() {}

    static TckRun run(TckSubject s, Workload w, String name, GovernanceOptions options, Plan plan) throws Exception {
        return runOn(s, w, w.createTable(s.warehouse, name), name, options, plan);
    }

    /**
     * As {@link #run}, on a table made beforehand (it may hold snapshots already: what was left is
     * judged against what it held before).
     */
    static TckRun runOn(TckSubject s, Workload w, FileStoreTable table, String name, GovernanceOptions options, Plan plan)
            throws Exception {
        TckRun run = new TckRun();
        run.before = WriteBaseline.take(s, table);
        run.table = table;
        run.budgetBytes = options.budgetBytes();
        if (plan.event() == Event.FAIL_ALLOCATION) {
            s.provider.failAllocationAt.set(plan.at());
        }
        try {
            run.context = ResourceContext.open("tck-" + name, s.provider, options, s.environment());
        } catch (RuntimeException e) {
            run.outcome = Outcome.FAILED;
            run.error = e;
            return run;
        }
        GovernedTableWrite write;
        try {
            write = GovernedTableWrite.batch(run.table, run.context);
        } catch (RuntimeException e) {
            run.outcome = Outcome.FAILED;
            run.error = e;
            run.metrics = run.context.snapshot();
            return run;
        }
        run.execute(s, w, write, plan);
        return run;
    }

    private void execute(TckSubject s, Workload w, GovernedTableWrite write, Plan plan) {
        AtomicInteger written = new AtomicInteger();
        AtomicBoolean preparing = new AtomicBoolean();
        AtomicLong cancelledAt = new AtomicLong();
        AtomicBoolean cancelFired = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        AtomicBoolean idle = new AtomicBoolean();
        scope = context.spillScopeDir();
        totalRows = w.rows();
        List<ObservedProvider.Observed> opened = s.provider.opened();
        held = opened.get(opened.size() - 1).held;
        live = new LiveSnapshots(context, held, budgetBytes, written);
        Thread sampler = startDaemon("tck-scope-sampler", () -> sampleScope(done));
        Thread canceller = startCanceller(s, write, plan, new AtomicBoolean[] {preparing, idle}, written, cancelledAt, cancelFired, done);
        InternalRowSerializer serializer = new InternalRowSerializer(table.rowType());
        try {
            int index = 0;
            for (InternalRow row : w.rowsInOrder()) {
                if (plan.event() == Event.CANCEL_IDLE && index == plan.at()) {
                    idle.set(true);
                    awaitCancel(done);
                }
                write.write(row);
                expectedInputBytes += serializer.toBinaryRow(row).getSizeInBytes();
                written.incrementAndGet();
                index++;
            }
            preparing.set(true);
            PreparedCommit prepared = write.prepareCommit();
            countFiles(prepared.messages());
            if (plan.event() == Event.ABORT) {
                outcome = Outcome.ABORTED;
            } else {
                prepared.commit();
                outcome = Outcome.COMMITTED;
                committedSnapshot = context.snapshot();
                pageBytesAtCommit = held.pageBytes();
                reservedBytesAtCommit = held.reservedBytes();
                heldAtCommit = held.now();
                for (Path f : before.newDataFiles(table)) {
                    tableFiles++;
                    tableFileBytes += Files.size(f);
                }
            }
        } catch (WriteCancelledException e) {
            long seen = System.nanoTime();
            outcome = Outcome.CANCELLED;
            error = e;
            if (cancelFired.get()) {
                cancelLatencyNanos = seen - cancelledAt.get();
            }
        } catch (Throwable t) {
            outcome = Outcome.FAILED;
            error = t;
        } finally {
            try {
                write.close();
            } catch (Throwable t) {
                closeError = t;
            }
            done.set(true);
            join(sampler);
            join(canceller);
            rowsWritten = written.get();
            metrics = context.snapshot();
            allocations = s.provider.allocationCalls();
            injected = s.provider.injected();
            peakHeldBytes = held.peak();
            compactionThreadsMade = s.provider.threads().size();
        }
    }

    private Thread startCanceller(
            TckSubject s,
            GovernedTableWrite write,
            Plan plan,
            AtomicBoolean[] preparingAndIdle,
            AtomicInteger written,
            AtomicLong cancelledAt,
            AtomicBoolean cancelFired,
            AtomicBoolean done) {
        Event e = plan.event();
        if (e != Event.CANCEL_AT_ROW && e != Event.CANCEL_IN_PREPARE && e != Event.ENGINE_CANCEL_AT_ROW
                && e != Event.CANCEL_IDLE && e != Event.CANCEL_AT_COMPACTION) {
            return null;
        }
        AtomicBoolean preparing = preparingAndIdle[0];
        AtomicBoolean idle = preparingAndIdle[1];
        return startDaemon(
                "tck-canceller",
                () -> {
                    switch (e) {
                        case CANCEL_IN_PREPARE -> {
                            spinUntil(preparing::get, done);
                            sleep(plan.at());
                        }
                        case CANCEL_IDLE -> spinUntil(idle::get, done);
                        case CANCEL_AT_COMPACTION -> {
                            spinUntil(() -> !s.provider.threads().isEmpty(), done);
                            sleep(plan.at());
                        }
                        default -> spinUntil(() -> written.get() >= plan.at(), done);
                    }
                    if (done.get()) {
                        return;
                    }
                    cancelledAt.set(System.nanoTime());
                    cancelFired.set(true);
                    if (e == Event.ENGINE_CANCEL_AT_ROW) {
                        s.engine.cancel("tck: engine cancel at row " + plan.at());
                    } else {
                        write.cancel("tck: cancel (" + e + " " + plan.at() + ")");
                    }
                    // An idle write was released on this thread by now: the writing thread may go on.
                    cancelReturned = true;
                    // Read after the cancel returned: a write that still had rows to go then and
                    // commits anyway ignored it; one that had finished merely won the race.
                    rowsAtCancel = written.get();
                });
    }

    private static void spinUntil(java.util.function.BooleanSupplier condition, AtomicBoolean done) {
        while (!condition.getAsBoolean() && !done.get()) {
            Thread.onSpinWait();
        }
    }

    /** The writing thread, idle between two rows, waits until the canceller's cancel returned (at most 30 s). */
    private void awaitCancel(AtomicBoolean done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cancelReturned && !done.get() && System.nanoTime() < deadline) {
            sleep(1);
        }
    }

    private void countFiles(List<CommitMessage> messages) {
        List<DataFileMeta> files = CommitFiles.dataFiles(messages);
        messageFiles = files.size();
        messageBytes = CommitFiles.bytes(files);
    }

    private void sampleScope(AtomicBoolean done) {
        while (!done.get()) {
            live.sample();
            // Made when the write first spills, under a later root should the first refuse then (SPILL.4).
            scope = context.spillScopeDir();
            try {
                if (scopePermissions == null && Files.exists(scope)) {
                    scopePermissions = PosixFilePermissions.toString(Files.getPosixFilePermissions(scope));
                }
                peakScopeBytes = Math.max(peakScopeBytes, sizeOf(scope, spillFilesSeen));
            } catch (IOException | UncheckedIOException | UnsupportedOperationException e) {
                // the scope may vanish between listing and reading; the next sample retries
            }
            sleep(1);
        }
    }

    /** The bytes of the spill files ({@code *.channel}) under {@code dir}; their names are added to {@code seen}. */
    private static long sizeOf(Path dir, Set<String> seen) throws IOException {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> files = walk.filter(p -> p.toString().endsWith(".channel")).toList();
            files.forEach(p -> seen.add(dir.relativize(p).toString()));
            return files.stream().mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** What the run left behind; empty when it left nothing. See {@link WriteBaseline#leftovers}. */
    List<String> leftovers(TckSubject s, boolean committed) throws Exception {
        return before.leftovers(s, context, table, committed);
    }

    /** The spill roots of the subject: the kit's, and every root the provider's resources named. */
    static List<Path> spillRoots(TckSubject s) {
        return WriteBaseline.spillRoots(s);
    }

    /**
     * Whether a row-triggered cancel fired while rows were still to be written: a write that then
     * commits ignored it. A cancel that fired after the last row may legitimately lose the race.
     */
    boolean cancelledMidWrite() {
        return rowsAtCancel >= 0 && rowsAtCancel < totalRows;
    }

    /**
     * What the write's close threw as {@code rule}'s failure, the close's error its cause; null when
     * the close threw nothing. The rules judge it after their checks ({@link TckWrites#judge}).
     */
    AssertionError closeFailure(Rule rule) {
        return closeError == null ? null
                : new AssertionError(rule.closeFailed("the write's close threw " + closeError + " (" + describe() + ")"),
                        closeError);
    }

    /** A short account of the run for failure messages. */
    String describe() {
        return "outcome " + outcome + (error == null ? "" : " (" + ThreadStacks.causes(error) + ")") + ", " + rowsWritten + " rows written";
    }

    private static Thread startDaemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
