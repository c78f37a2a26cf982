package io.paimongov.cli;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.runtime.tables.DamagedTableException;
import io.paimongov.runtime.tables.TableCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one demo end to end and reports what happened: creates the table, writes the generated rows
 * through one {@link GovernedTableWrite} (cancelled from another thread when asked), commits,
 * closes, measures what was left behind, streams the table back against the model and removes a
 * temporary warehouse.
 *
 * <p>Never throws for a failure of the run itself, {@link OutOfMemoryError} included (the write is
 * closed first, which frees its buffers): the report carries the error, named by {@link RootCause},
 * so the caller can still print what was measured. When the JVM is told to stop, {@link
 * ShutdownCleanup} cancels the write; the run then ends as a cancelled one, with the error kind
 * {@link RootCause.Kind#SIGNAL}, and removes its temporary warehouse as usual. The numbers "after
 * close" are read after the write and its {@link ResourceContext} are closed, which is when
 * everything must have been given back.
 *
 * <p>Not thread-safe; one run per instance, on the calling thread (plus the cancel watcher).
 */
final class DemoJob {

    private static final Logger LOG = LoggerFactory.getLogger(DemoJob.class);
    /** What to do about a damaged table the run continues into. */
    static final String DAMAGE_ADVICE = "restore the file from a backup, or run again with --replace to drop the table"
            + " and create it anew (its rows are lost)";

    private final DemoSettings settings;
    private final Progress progress;
    private final ShutdownCleanup shutdown;
    private final PhaseTrace trace = PhaseTrace.fromSystemProperty();

    DemoJob(DemoSettings settings, Progress progress, ShutdownCleanup shutdown) {
        this.settings = settings;
        this.progress = progress;
        this.shutdown = shutdown;
    }

    /** What the run learned so far; becomes the report. */
    private static final class Run {
        long rowsWritten;
        long deletes;
        boolean committed;
        boolean cancelled;
        WriteSummary writes;
        long engineUsedAfterClose;
        long spillFilesLeft;
        Path spillScope;
        DemoWorkload.Verification verification;
        long writeMillis;
        TimelineRecorder.Timeline timeline;
        Path timelineFile;
        String error;
        RootCause.Kind errorKind;
    }

    DemoReport run() {
        long start = System.nanoTime();
        Run run = new Run();
        Path warehouse = settings.warehouse();
        Path kept = null;
        FileStoreTable table = null;
        try {
            if (warehouse == null) {
                // A kept warehouse outlives the process, so it goes outside the process's temp scope.
                warehouse = settings.keep()
                        ? Files.createTempDirectory(ProcessTempScope.outside(), "paimon-governance-demo-")
                        : ProcessTempScope.tempDirectory("paimon-governance-demo-");
                if (!settings.keep()) {
                    shutdown.removeOnShutdown(warehouse);
                }
            }
            WritableDirs.require(writtenDirs(warehouse));
            boolean continued = !settings.replace() && DemoTable.exists(warehouse);
            table = DemoTable.openOrCreate(
                    warehouse, settings.table(), settings.buckets(), settings.format(), settings.replace());
            if (continued) {
                // Paimon reads only the latest snapshot: a damaged older one would be committed over in silence.
                progress.phase("checking the table");
                TableCheck.verify(table);
            }
            Long opened = OtherWriters.latest(table);
            // A table this run continues into: the model starts from what it holds.
            DemoWorkload workload = DemoRecipe.of(settings, warehouse, !isSpark()).workload(table);
            if (isEngine()) {
                writeThroughEngine(warehouse, workload, run);
            } else {
                write(table, workload, run);
            }
            // Postpone-bucket rows stay invisible until Paimon rescales the table: a read shows nothing.
            run.verification = readBack(table, workload, run.committed, opened);
        } catch (Exception | OutOfMemoryError e) {
            LOG.debug("the demo failed", e);
            failed(run, e, warehouse, table);
        } finally {
            progress.clear();
            // Also after an Error such as OutOfMemoryError: a temporary warehouse is never left.
            kept = removeTemporary(warehouse);
            trace.enter("done");
        }
        if (shutdown.requested()) {
            run.error = "stopped by a signal: " + ShutdownCleanup.REASON + "; "
                    + (run.committed ? "the commit was published before it, the read-back did not finish"
                            : "the write was cancelled and nothing was committed")
                    + (run.error == null ? "" : " (" + run.error + ")");
            run.errorKind = RootCause.Kind.SIGNAL;
        }
        drawTimeline(run);
        return new DemoReport(
                settings, run.rowsWritten, run.deletes, run.committed, run.cancelled, run.writes,
                run.engineUsedAfterClose, run.spillFilesLeft, run.spillScope, run.verification, run.writeMillis,
                millisSince(start), kept, run.timeline, run.timelineFile, run.error, run.errorKind);
    }

    /**
     * Records why the run failed. The options and the provider refuse a bad setting with an
     * {@link IllegalArgumentException} naming its key (usage); an error of the environment is named
     * by its root cause, with the warehouse and the spill roots as the places written to. A failure
     * that is neither, on a table that exists, may come from a file of the table damaged while the
     * run read or wrote it: the table is checked, and its damage, when found, is the error.
     */
    private void failed(Run run, Throwable e, Path warehouse, FileStoreTable table) {
        RootCause.Memory memory = RootCause.Memory.of(settings.options().budgetBytes());
        RootCause.Diagnosis why = RootCause.of(e, memory, writtenDirs(warehouse), DAMAGE_ADVICE);
        if (why.kind() == RootCause.Kind.INTERNAL && warehouse != null && !shutdown.requested()) {
            DamagedTableException damaged = damage(warehouse, table);
            if (damaged != null) {
                damaged.addSuppressed(e);
                why = RootCause.of(damaged, memory, writtenDirs(warehouse), DAMAGE_ADVICE);
            }
        }
        run.error = why.message();
        run.errorKind = why.kind();
    }

    /**
     * The damage of the demo table, or null: of its schema files when the table could not even be
     * opened ({@code table} null), else of every file {@link TableCheck} looks at.
     */
    private static DamagedTableException damage(Path warehouse, FileStoreTable table) {
        if (table == null) {
            return DemoTable.schemaDamage(warehouse).orElse(null);
        }
        try {
            TableCheck.verify(table);
            return null;
        } catch (DamagedTableException damaged) {
            return damaged;
        } catch (IOException | RuntimeException unchecked) {
            LOG.debug("the table could not be checked after the failure", unchecked);
            return null;
        }
    }

    private void write(FileStoreTable table, DemoWorkload workload, Run run) throws Exception {
        long start = System.nanoTime();
        ResourceContext ctx =
                ResourceContext.open("paimon-governance-demo", settings.provider(), settings.options(),
                        EngineEnvironment.standalone());
        run.spillScope = ctx.spillScopeDir();
        shutdown.removeOnShutdown(ctx.spillScopeDir());
        shutdown.cancelOnShutdown(() -> ctx.cancel(ShutdownCleanup.REASON));
        TimelineRecorder timeline = settings.timeline() == null ? null : TimelineRecorder.start(ctx::snapshot);
        trace.watch(ctx::snapshot);
        trace.enter("write");
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, ctx);
                CancelAfterRows rows = CancelAfterRows.start(settings.cancelAfterRows(), ctx)) {
            for (int i = 0; i < settings.rows(); i++) {
                write.write(workload.next());
                run.rowsWritten = rows.rowWritten();
                progress.update("writing", run.rowsWritten, settings.rows(), () -> usage(ctx));
            }
            progress.phase("committing");
            trace.enter("prepareCommit");
            PreparedCommit prepared = write.prepareCommit();
            trace.enter("commit");
            prepared.commit();
            run.committed = true;
        } catch (WriteCancelledException e) {
            run.cancelled = true;
        } finally {
            trace.stopWatching();
            // The write closed the context already (also when it failed to open); closing again is
            // a no-op that makes "after close" below true by construction.
            ctx.close();
            if (timeline != null) {
                timeline.stop();
                run.timeline = timeline.timeline();
            }
            run.writeMillis = millisSince(start);
            run.deletes = workload.deletes();
            run.writes = WriteSummary.of(ctx.snapshot());
            run.engineUsedAfterClose = ctx.engineUsedBytes();
            run.spillFilesLeft = countFiles(ctx.spillScopeDir());
        }
    }

    private boolean isSpark() {
        return settings.provider().name().equals("spark");
    }

    /** Whether the demo writes through an engine's SQL (providers flink and spark) rather than one write here. */
    private boolean isEngine() {
        return DemoEngines.isEngine(settings.provider().name());
    }

    /**
     * The rows through the engine's SQL path ({@link FlinkDemoWrite}, {@link SparkDemoWrite}); the
     * engine's task makes the rows again from the same recipe, so the model here is advanced by the
     * same rows once the statement committed.
     */
    private void writeThroughEngine(Path warehouse, DemoWorkload workload, Run run) throws Exception {
        long start = System.nanoTime();
        // The engine's temp dir (Flink's io.tmp.dirs, Spark's local dir): a fresh one under the first spill root.
        Path spillRoot = java.nio.file.Files.createTempDirectory(settings.options().spillDirs().get(0), "paimon-governance-demo-engine-");
        shutdown.removeOnShutdown(spillRoot);
        progress.phase("writing through " + settings.provider().name() + " SQL");
        trace.enter("write");
        try {
            EngineWrite done = isSpark()
                    ? SparkDemoWrite.run(settings, warehouse, spillRoot)
                    : FlinkDemoWrite.run(settings, warehouse, spillRoot);
            run.rowsWritten = done.rowsWritten();
            run.committed = done.committed();
            run.cancelled = done.cancelled();
            run.writes = done.writes();
            run.engineUsedAfterClose = done.engineUsedAfterClose();
            run.spillFilesLeft = done.spillFilesLeft();
            run.spillScope = done.spillRoot();
            if (run.committed) {
                for (int i = 0; i < settings.rows(); i++) {
                    workload.next();
                }
            }
        } finally {
            run.writeMillis = millisSince(start);
            run.deletes = workload.deletes();
            ShutdownCleanup.deleteTree(spillRoot);
        }
    }

    /** The warehouse (when known) and the spill roots: where the run writes. */
    private List<Path> writtenDirs(Path warehouse) {
        List<Path> dirs = new ArrayList<>();
        if (warehouse != null) {
            dirs.add(warehouse);
        }
        dirs.addAll(settings.options().spillDirs());
        return dirs;
    }

    /**
     * Draws the recorded timeline into {@code --timeline}, also after a failed or cancelled write
     * (the chart shows what happened up to then). A chart that cannot be written is the run's error
     * unless it already has one.
     */
    private void drawTimeline(Run run) {
        if (run.timeline == null) {
            return;
        }
        String subtitle = String.format(Locale.ROOT, "provider '%s', %,d rows, %d partitions x %d buckets, %s",
                settings.provider().name(), run.rowsWritten, settings.partitions(), settings.buckets(), settings.format());
        try {
            TimelineChart.write(run.timeline, subtitle, settings.timeline());
            run.timelineFile = settings.timeline();
        } catch (IOException | RuntimeException e) {
            LOG.debug("the timeline could not be drawn", e);
            if (run.error == null) {
                run.error = "cannot write --timeline " + settings.timeline() + ": " + e;
            }
        }
    }

    private static String usage(ResourceContext ctx) {
        MetricsSnapshot m = ctx.snapshot();
        return "mem " + DemoReport.bytes(m.reservedBytes()) + "  spill " + DemoReport.bytes(m.spillBytes());
    }

    /**
     * Reads the table back against the model. The model holds what the table held when the run
     * opened it ({@code opened}, its latest snapshot then) and the run's rows: another writer's
     * commit since makes the comparison meaningless, and fails the run instead ({@link OtherWriters}).
     */
    private DemoWorkload.Verification readBack(FileStoreTable table, DemoWorkload workload, boolean committed, Long opened)
            throws IOException {
        progress.phase("reading back");
        trace.enter("readBack");
        OtherWriters.check(table, opened, committed);
        DemoWorkload.Verifier verifier = workload.verifier(committed && settings.table().readable());
        long expected = verifier.expectedRows();
        DemoTable.forEachRow(
                table,
                row -> {
                    if (shutdown.requested()) {
                        throw new IllegalStateException("the read-back stopped: " + ShutdownCleanup.REASON);
                    }
                    verifier.accept(row);
                    progress.update("reading back", verifier.rows(), expected, () -> "");
                });
        return verifier.finish();
    }

    /**
     * Files (not directories) under {@code dir}: 0 when it is gone, -1 when it cannot be listed.
     * Does not throw, so it cannot hide the failure of the write it measures.
     */
    private static long countFiles(Path dir) {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).count();
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot list the spill scope {}: {}", dir, e.toString());
            return -1;
        }
    }

    /** Removes a warehouse this run created unless --keep; returns the warehouse if it remains. */
    private Path removeTemporary(Path warehouse) {
        if (warehouse == null || settings.warehouse() != null || settings.keep()) {
            return warehouse;
        }
        try (Stream<Path> walk = Files.walk(warehouse)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
            return null;
        } catch (IOException e) {
            LOG.warn("cannot remove the temporary warehouse {}: {}", warehouse, e.toString());
            return warehouse;
        }
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
