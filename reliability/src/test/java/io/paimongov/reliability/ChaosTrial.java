package io.paimongov.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

/**
 * One chaos run, step by step: the demo as a child process on a warehouse {@code W} and a spill
 * directory {@code S} of its own, stopped by the drawn fault; the checks of what that left; the
 * next run; the checks after it. docs/reliability.md ("The chaos suite") lists the checks.
 *
 * <p>The model of the table is "exactly the last committed state": the fault run started on an
 * empty warehouse, so the table holds no snapshot, or, when the commit completed before the fault,
 * exactly what the same demo commits when nothing stops it (a reference run on a fresh warehouse,
 * which also checks itself against the demo's reference model).
 *
 * <p>Not thread-safe; one run per instance.
 */
final class ChaosTrial {

    /** Sizes of the small file systems: below the spill of one buffer, below the table's data files. */
    private static final long SPILL_DISK_BYTES = 128 * 1024;
    private static final long WAREHOUSE_DISK_BYTES = 64 * 1024;

    /** What one run measured, for the report and the table in docs/reliability.md. */
    record Row(ChaosCase run, int exitCode, boolean signalled, String lastPhase, Left afterFault, Left afterCleanup,
            String cleanup, String notRun) {}

    /**
     * What was left: spill files under the spill dirs; files in the children's tmpdir, and of those
     * the ones inside the temp scope of a killed CLI process ({@code paimon-gov-<pid>-<uuid>}, where
     * the process's libraries extract their native code and the next command sweeps); orphans in
     * W; snapshots.
     */
    record Left(long spillFiles, long tmpFiles, long inDeadScopes, long orphans, long orphanBytes, long snapshots) {
        String describe() {
            return "spill " + spillFiles + ", tmp " + tmpFiles + (inDeadScopes > 0 ? " (" + inDeadScopes + " in the killed process's scope)" : "")
                    + ", orphans " + orphans + " (" + orphanBytes + " B), snapshots " + snapshots;
        }
    }

    /** The temp scope of a CLI process, {@code paimon-gov-<pid>-<uuid>} (ProcessTempScope in governance-cli). */
    private static final Pattern PROCESS_SCOPE = Pattern.compile("paimon-gov-\\d+-.*");

    private final ChaosCase run;
    private final Path dir;
    private final Checks checks = new Checks();
    private Row row;

    ChaosTrial(ChaosCase run, Path dir) {
        this.run = run;
        this.dir = dir;
    }

    Checks checks() {
        return checks;
    }

    Row row() {
        return row;
    }

    /** Runs the fault, the checks, the next run and its checks; {@link #row()} then holds the numbers. */
    void run() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path spill = Files.createDirectories(dir.resolve("spill"));
        // One java.io.tmpdir for every child of the run, as on a machine: a library may clean there what an earlier JVM left.
        Path tmp = dir.resolve("tmp");
        Optional<SmallDisk> disk = Optional.empty();
        if (run.fault() == ChaosCase.Fault.FULL_SPILL_DISK || run.fault() == ChaosCase.Fault.FULL_WAREHOUSE_DISK) {
            boolean ofSpill = run.fault() == ChaosCase.Fault.FULL_SPILL_DISK;
            SmallDisk.Result mounted = SmallDisk.mount(ofSpill ? spill : warehouse, ofSpill ? SPILL_DISK_BYTES : WAREHOUSE_DISK_BYTES);
            if (mounted.disk().isEmpty()) {
                row = new Row(run, 0, false, "-", null, null, "", mounted.whyNot());
                return;
            }
            disk = mounted.disk();
        }
        try {
            ChaosRun.Result fault = faultRun(warehouse, spill, tmp);
            Left afterFault = left(warehouse, List.of(spill), List.of(tmp));
            checkAfterFault(fault, warehouse, afterFault);
            if (run.fault() == ChaosCase.Fault.FULL_SPILL_DISK) {
                disk.get().close();
            }
            String cleanup = nextRunAndCleanup(warehouse, spill, afterFault);
            checkCommittedContent();
            // Measured before the finally block unmounts a small warehouse disk.
            Left afterCleanup = afterCleanup(warehouse, spill);
            row = new Row(run, fault.exitCode(), fault.signalled(), fault.lastPhase(), afterFault, afterCleanup, cleanup, "");
            checkAfterCleanup(warehouse, afterCleanup, cleanup);
        } finally {
            if (disk.isPresent()) {
                disk.get().close();
            }
        }
    }

    private ChaosRun.Result faultRun(Path warehouse, Path spill, Path tmp) throws Exception {
        return ChaosRun.run(demo(warehouse, spill), tmp, dir.resolve("fault.log"), run.phase(), signal(), run.delayMillis());
    }

    /** The signal of the run's fault; null for a full disk. */
    private ChaosRun.Signal signal() {
        return switch (run.fault()) {
            case KILL -> ChaosRun.Signal.KILL;
            case TERM -> ChaosRun.Signal.TERM;
            default -> null;
        };
    }

    private List<String> demo(Path warehouse, Path spill, String... more) {
        List<String> args = new ArrayList<>(List.of("demo", "--warehouse", warehouse.toString(), "--spill-dir", spill.toString()));
        args.addAll(run.demoOptions());
        args.addAll(List.of(more));
        return args;
    }

    private void checkAfterFault(ChaosRun.Result fault, Path warehouse, Left left) throws Exception {
        checks.phase("after fault");
        if (signal() != null) {
            checks.check("the drawn phase was reached", fault.phaseReached(), fault.phases(), "phase " + run.phase() + " printed");
            int expected = fault.signalled() ? signal().exitCode : 0;
            // A signal sent in the last instant of a run that was already ending meets a finished report.
            boolean finished = fault.exitCode() == 0 && verified(fault.stdout());
            checks.check("exit code", fault.exitCode() == expected || finished, fault.exitCode(),
                    expected + (fault.signalled() ? " (signalled)" : " (ended before the signal, report verified)"));
        } else {
            checks.check("the full disk failed the run", fault.exitCode() != 0, fault.exitCode(), "not 0");
            checks.equal("exit code of an environment error", fault.exitCode(), 4);
            checks.check("the error names the full disk", mentionsNoSpace(fault), errorLine(fault), "'No space left on device'");
        }
        checkTmp("files in the child's java.io.tmpdir", left, "after fault");
        if (run.fault() == ChaosCase.Fault.TERM) {
            checks.equal("spill files left after SIGTERM", left.spillFiles(), 0L);
        } else if (run.fault() != ChaosCase.Fault.KILL) {
            checks.equal("spill files left after the failed run", left.spillFiles(), 0L);
        }
        checkTable(warehouse, fault);
    }

    /** The table holds no snapshot, or exactly the reference content in one commit; the snapshots are sound. */
    private void checkTable(Path warehouse, ChaosRun.Result fault) throws Exception {
        Optional<FileStoreTable> table = open(warehouse);
        if (table.isEmpty()) {
            checks.check("the table exists only if the run got that far", !fault.phases().contains("write"), fault.phases(),
                    "no 'write' phase without a table");
            return;
        }
        long snapshots = snapshotCount(table.get());
        checks.none("the snapshot directory is sound", Tables.snapshotProblems(table.get(), (int) snapshots),
                "snapshots 1..n, each readable, nothing else");
        Map<List<Integer>, String> content = TestTables.read(table.get());
        if (snapshots == 0) {
            checks.equal("rows in a table without a commit", content.size(), 0);
        } else {
            committedContent = content;
        }
    }

    /** The content of a table the fault run committed, compared once the next run has run. */
    private Map<List<Integer>, String> committedContent;

    /**
     * A table the fault run committed holds exactly what the same demo commits when nothing stops
     * it: the next run's table when that run went to a fresh warehouse with the same options (it
     * verified itself against the demo's model), else a reference run of its own.
     */
    private void checkCommittedContent() throws Exception {
        if (committedContent == null) {
            return;
        }
        checks.phase("after fault");
        Optional<FileStoreTable> next = open(dir.resolve("warehouse-next"));
        if (next.isEmpty()) {
            Path warehouse = dir.resolve("reference-warehouse");
            Path spill = Files.createDirectories(dir.resolve("reference-spill"));
            ChaosRun.Result ref = ChaosRun.run(demo(warehouse, spill), dir.resolve("tmp"), dir.resolve("reference.log"));
            checks.check("the reference run verifies", ref.exitCode() == 0 && verified(ref.stdout()), ref.exitCode(), "exit 0, verified");
            next = open(warehouse);
        }
        Map<List<Integer>, String> reference = TestTables.read(next.orElseThrow());
        String difference = Tables.difference(reference, committedContent);
        checks.check("a committed table holds exactly what the demo commits", difference.isEmpty(),
                difference.isEmpty() ? "equal, " + reference.size() + " rows" : difference, "the content of a run nothing stopped");
    }

    /**
     * The next run, and what removes the fault's orphans, alternating so that CI runs both: on even
     * runs the demo again on {@code W} with {@code --orphans-older-than 0s} (it continues into the
     * table); on odd runs, and always for a full warehouse disk (where a re-run would meet the full
     * disk again), a demo on a fresh warehouse with the same spill dir, whose open sweeps the spill
     * scopes of dead processes, then {@code clean --warehouse W --older-than 0s}. Returns what
     * cleaned {@code W}.
     */
    private String nextRunAndCleanup(Path warehouse, Path spill, Left afterFault) throws Exception {
        checks.phase("next run");
        Path nextSpill = run.fault() == ChaosCase.Fault.FULL_SPILL_DISK ? Files.createDirectories(dir.resolve("spill-next")) : spill;
        boolean rerun = run.index() % 2 == 0 && run.fault() != ChaosCase.Fault.FULL_WAREHOUSE_DISK;
        List<String> args = rerun
                ? demo(warehouse, nextSpill, "--orphans-older-than", "0s")
                : demo(dir.resolve("warehouse-next"), nextSpill);
        ChaosRun.Result next = ChaosRun.run(args, dir.resolve("tmp"), dir.resolve("next.log"));
        checks.check("the next run verifies", next.exitCode() == 0 && verified(next.stdout()), next.exitCode(), "exit 0, verified");
        if (rerun) {
            return "re-run on W";
        }
        // The orphan count has no false positives: a table nothing stopped references every file it holds.
        Optional<FileStoreTable> fresh = open(dir.resolve("warehouse-next"));
        checks.check("a table nothing stopped has no orphans", fresh.isPresent() && TableFiles.unreferenced(fresh.get()).isEmpty(),
                fresh.isPresent() ? TableFiles.unreferenced(fresh.get()) : "no table", "none");
        ChaosRun.Result clean = ChaosRun.run(List.of("clean", "--warehouse", warehouse.toString(), "--older-than", "0s", "--json"),
                dir.resolve("tmp"), dir.resolve("clean.log"));
        checks.equal("clean exits 0", clean.exitCode(), 0);
        JsonNode json = clean.exitCode() == 0 ? Json.parse(clean.stdout()) : null;
        long reported = json == null ? -1 : json.path("orphanFiles").asLong(-1);
        checks.equal("clean found the orphans counted independently", reported, afterFault.orphans());
        return "run on a new warehouse + clean W";
    }

    private void checkAfterCleanup(Path warehouse, Left after, String cleanup) throws Exception {
        checks.phase("after cleanup");
        checks.equal("spill files left", after.spillFiles(), 0L);
        checkTmp("files in the run's java.io.tmpdir", after, "after cleanup");
        Optional<FileStoreTable> table = open(warehouse);
        if (table.isPresent()) {
            // What a re-run committed and what clean removed leave the snapshots as sound as before.
            checks.none("the snapshot directory of W is sound", Tables.snapshotProblems(table.get(), (int) after.snapshots()),
                    "snapshots 1..n, each readable, nothing else");
        }
        checks.equal("orphan files in W", after.orphans(), 0L);
    }

    /**
     * Nothing in the tmpdir; right after a SIGKILL, nothing outside the killed process's own temp
     * scope (the next command removes the scope: checked after cleanup, where nothing may be left).
     */
    private void checkTmp(String name, Left left, String phase) {
        if (run.fault() == ChaosCase.Fault.KILL && phase.equals("after fault")) {
            checks.equal(name + " outside the killed process's temp scope", left.tmpFiles() - left.inDeadScopes(), 0L);
        } else {
            checks.equal(name, left.tmpFiles(), 0L);
        }
    }

    private Left afterCleanup(Path warehouse, Path spill) throws Exception {
        List<Path> spills = new ArrayList<>(List.of(spill, dir.resolve("spill-next")));
        return left(warehouse, spills, List.of(dir.resolve("tmp")));
    }

    private Left left(Path warehouse, List<Path> spills, List<Path> tmps) throws Exception {
        long spillFiles = 0;
        for (Path s : spills) {
            spillFiles += countFiles(s);
        }
        long tmpFiles = 0;
        long inDeadScopes = 0;
        for (Path t : tmps) {
            tmpFiles += countFiles(t);
            inDeadScopes += inProcessScopes(t);
        }
        Optional<FileStoreTable> table = open(warehouse);
        if (table.isEmpty()) {
            return new Left(spillFiles, tmpFiles, inDeadScopes, 0, 0, 0);
        }
        Set<String> orphans = TableFiles.unreferenced(table.get());
        Path tableDir = Tables.directory(table.get());
        return new Left(spillFiles, tmpFiles, inDeadScopes, orphans.size(),
                orphans.stream().mapToLong(o -> tableDir.resolve(o).toFile().length()).sum(), snapshotCount(table.get()));
    }

    /** Files (anything but directories) under {@code dir}. */
    static long countFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> !p.equals(dir) && !Files.isDirectory(p)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Files under the CLI process temp scopes directly in {@code tmp}. */
    private static long inProcessScopes(Path tmp) {
        if (!Files.isDirectory(tmp)) {
            return 0;
        }
        try (Stream<Path> list = Files.list(tmp)) {
            return list.filter(p -> Files.isDirectory(p) && PROCESS_SCOPE.matcher(p.getFileName().toString()).matches())
                    .mapToLong(ChaosTrial::countFiles).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The snapshot files in the table's directory, readable or not. */
    private static long snapshotCount(FileStoreTable table) throws IOException {
        Path snapshots = Tables.directory(table).resolve("snapshot");
        if (!Files.isDirectory(snapshots)) {
            return 0;
        }
        try (Stream<Path> list = Files.list(snapshots)) {
            return list.filter(p -> p.getFileName().toString().matches("snapshot-\\d+")).count();
        }
    }

    /** The demo's table in {@code warehouse}, freshly opened, if it exists. */
    static Optional<FileStoreTable> open(Path warehouse) throws Exception {
        if (!Files.isDirectory(warehouse.resolve("demo.db").resolve("kv"))) {
            return Optional.empty();
        }
        CatalogContext context = CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString()));
        try (Catalog catalog = CatalogFactory.createCatalog(context)) {
            return Optional.of((FileStoreTable) catalog.getTable(Identifier.create("demo", "kv")));
        } catch (Catalog.TableNotExistException e) {
            return Optional.empty();
        }
    }

    private static boolean verified(String stdout) {
        try {
            return Json.parse(stdout).path("verified").asBoolean(false);
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean mentionsNoSpace(ChaosRun.Result fault) throws IOException {
        return errorLine(fault).toLowerCase(java.util.Locale.ROOT).contains("no space left");
    }

    private static String errorLine(ChaosRun.Result fault) throws IOException {
        return Files.readAllLines(fault.log()).stream().filter(l -> l.startsWith("error:")).findFirst().orElse("(no error line)");
    }
}
