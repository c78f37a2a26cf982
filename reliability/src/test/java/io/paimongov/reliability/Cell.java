package io.paimongov.reliability;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.fixtures.TestTables;
import io.paimongov.reliability.Fault.Outcome;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One run of one cell of the matrix (an allocator, a fault, a repeat), start to end:
 *
 * <ol>
 *   <li>a first write commits a base workload: the table's last committed state and the model;
 *   <li>the faulty write of a second workload, with the fault;
 *   <li>the checks "after fault": the outcome, that the fault struck, zero accounted bytes, the
 *       allocator empty at close, the engine's memory back to its start, no spill scope or file, no
 *       new file the snapshots do not reference, a consistent snapshot directory, the table equal
 *       to the model (with the write applied only if it committed), the cancellations metric;
 *   <li>the engine is closed (its own leak check) and a fresh one started on the same dirs;
 *   <li>the retry: the same workload again, no fault; it must commit, and the same checks hold
 *       with the table equal to the model with the write applied.
 * </ol>
 *
 * {@link Fault#PROCESS_KILLED} runs the faulty write in a child JVM ({@link KilledWriter}) instead.
 * Not thread-safe.
 */
final class Cell {

    private static final String AFTER_FAULT = "after fault";
    private static final String RETRY = "retry";

    private final Allocator allocator;
    private final Fault fault;
    private final Settings settings;
    private final int repeat;
    private final Checks checks = new Checks();
    private World world;
    private Tables.Workload workload;
    private Map<List<Integer>, String> committed;
    private Set<String> filesBefore;
    private long snapshotsBefore;
    private Path killedScope;
    String outcome;
    String retryOutcome;

    Cell(Allocator allocator, Fault fault, Settings settings, int repeat) {
        this.allocator = allocator;
        this.fault = fault;
        this.settings = settings;
        this.repeat = repeat;
    }

    /** The checks made so far: all of them once {@link #run} returned. */
    Checks checks() {
        return checks;
    }

    /** Runs the cell in {@code dir}; {@link #checks()} says how it went. */
    void run(Path dir) throws Exception {
        long seed = settings.seedOf(allocator, fault, repeat);
        try (World w = new World(allocator, settings, dir)) {
            world = w;
            Tables.Workload base = Tables.Workload.random(seed, settings.rows() / 4);
            workload = Tables.Workload.random(seed + 1, settings.rows() * FaultSetup.rowsFactor(fault));
            Attempt first = Attempt.run(w, "base", w.options(), base.rows(), -1, null);
            checks.phase("setup").equal("base write", first.outcome, Outcome.COMMITTED);
            committed = base.applyTo(TestTables.emptyModel());
            filesBefore = Tables.files(w.table);
            snapshotsBefore = latestSnapshot();
            if (fault == Fault.PROCESS_KILLED) {
                killed(dir.resolve("child.log"));
            } else {
                faulty();
            }
            retry();
        }
    }

    private void faulty() throws Exception {
        FaultSetup setup = FaultSetup.of(fault, world, settings.faultRow(repeat));
        Attempt a;
        try {
            a = Attempt.run(world, fault.id, setup.options(), workload.rows(), settings.faultRow(repeat), setup.midWrite());
        } finally {
            setup.disarm();
        }
        outcome = a.describe();
        checks.phase(AFTER_FAULT);
        checks.check("outcome", fault.allows(a.outcome, a.error) && a.closeError == null, a.describe(), fault.expectation() + ", close without error");
        checks.check("fault struck", setup.struck(a), setup.evidence(a), "the fault happened and reached the write");
        boolean landed = a.outcome == Outcome.COMMITTED;
        leftovers(a.finalMetrics(), landed ? workload.applyTo(committed) : committed, landed);
        checks.equal("cancellations metric", a.finalMetrics() == null ? null : a.finalMetrics().cancellations(), fault.cancellations);
        if (landed) {
            committed = workload.applyTo(committed);
        }
        engineClosed(world.restartEngine());
    }

    private void engineClosed(Throwable error) {
        checks.check("engine closes cleanly", error == null, error == null ? "closed" : Errors.summary(error), "no leak reported by the engine");
    }

    private void killed(Path log) throws Exception {
        Path scopeFile = world.dir.resolve("killed-scope");
        KilledWriter.Result r = KilledWriter.runAndKill(world, settings.seedOf(allocator, fault, repeat) + 1, scopeFile, log);
        outcome = r.describe();
        checks.phase(AFTER_FAULT);
        checks.check("outcome", r.killed(), r.describe(), "the child wrote with spill on disk and was killed (SIGKILL)");
        checks.check("fault struck", r.scope() != null && r.spillFilesAtKill() > 0, r.scope() + " with " + r.spillFilesAtKill() + " spill files", "the killed write left a spill scope with spill files");
        checks.none("snapshots", Tables.snapshotProblems(world.table, (int) snapshotsBefore), "the snapshots of the base write only, all complete");
        checks.none("orphan files", Tables.orphans(world.table, filesBefore), "no file the snapshots do not reference");
        Map<List<Integer>, String> content = TestTables.read(Tables.open(world.warehouse, World.TABLE));
        checks.check("table content", content.equals(committed), describeContent(content, committed), "the last committed state");
        killedScope = r.scope();
    }

    private void retry() throws Exception {
        GovernanceOptions options =
                fault == Fault.PROCESS_KILLED
                        ? world.options(GovernanceOptions.SPILL_DIRS, world.spillRoot.toString())
                        : world.options();
        Attempt a = Attempt.run(world, RETRY, options, workload.rows(), -1, null);
        retryOutcome = a.describe();
        checks.phase(RETRY);
        checks.check("outcome", a.outcome == Outcome.COMMITTED && a.closeError == null, a.describe(), "COMMITTED");
        Map<List<Integer>, String> expected = workload.applyTo(committed);
        leftovers(a.finalMetrics(), expected, true);
        engineClosed(world.closeEngine());
        if (killedScope != null) {
            checks.check(
                    "dead scope swept",
                    !Files.exists(killedScope) && a.context != null && a.context.sweptScopes() >= 1,
                    (Files.exists(killedScope) ? "still there" : "gone") + ", swept " + (a.context == null ? "?" : a.context.sweptScopes()),
                    "the retry's context removed the killed process's scope");
        }
    }

    /** The checks every phase shares: nothing held, nothing left on disk, the table as the model says. */
    private void leftovers(MetricsSnapshot last, Map<List<Integer>, String> expected, boolean landed) throws Exception {
        long reserved = last == null ? 0 : last.reservedBytes();
        checks.equal("accounted bytes", reserved, 0L);
        List<String> allocatorHeld = new ArrayList<>();
        for (ObservedProvider.Opened o : world.provider.opened()) {
            if (o.usedAtClose() != 0) {
                allocatorHeld.add(o.usedAtClose() < 0 ? "resources never closed" : o.usedAtClose() + " bytes at close");
            }
        }
        checks.none("allocator at close", allocatorHeld, "every write's allocator held 0 bytes when the runtime closed it");
        checks.equal("engine memory", world.engine().engineUsedBytes(), world.engineStart());
        checks.none("spill files", world.spillLeftovers(), "no spill scope or spill file under any spill root or the engine's temp space");
        checks.none("orphan files", Tables.orphans(world.table, filesBefore), "no new file the snapshots do not reference");
        long added = latestSnapshot() - snapshotsBefore;
        List<String> snapshots = new ArrayList<>(Tables.snapshotProblems(world.table, (int) latestSnapshot()));
        if (landed ? added < 1 : added != 0) {
            snapshots.add(added + " snapshots added by the write");
        }
        checks.none("snapshots", snapshots, landed ? "complete snapshots, the write's added" : "complete snapshots, none added");
        Map<List<Integer>, String> content = TestTables.read(Tables.open(world.warehouse, World.TABLE));
        checks.check("table content", content.equals(expected), describeContent(content, expected), landed ? "the model with the write applied" : "the last committed state");
    }

    private long latestSnapshot() {
        Long id = world.table.snapshotManager().latestSnapshotIdFromFileSystem();
        return id == null ? 0 : id;
    }

    private static String describeContent(Map<List<Integer>, String> actual, Map<List<Integer>, String> expected) {
        String diff = Tables.difference(expected, actual);
        return actual.size() + " rows" + (diff.isEmpty() ? ", equal to the model" : "; " + diff);
    }

    /** Deletes a cell's directory after it passed. */
    static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
