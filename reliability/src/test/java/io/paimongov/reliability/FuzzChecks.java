package io.paimongov.reliability;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.table.FileStoreTable;

/**
 * What must hold after a fuzz iteration, however its writes ended, recorded as {@link Checks}:
 *
 * <ul>
 *   <li>per write: it committed, or failed with a typed error it may meet ({@link
 *       ResourceExhaustedException}; {@link WriteCancelledException} only when it was cancelled),
 *       never anything else; close did not throw; a commit that started after the cancel returned
 *       published nothing; a committed table reads back as the model, a failed one is unchanged
 *       (no snapshot, the files it had); a committed table has no file Paimon's own orphan-file
 *       clean would remove; nothing accounted after close; the accounted peak, the allocator's
 *       own peak and every sample after a grant within the budget; the allocator at 0 when the
 *       runtime closed it; the cancellations metric 1 exactly when a cancel reached the write;
 *   <li>per iteration: every write ended before the deadline; the engine's own counter, read
 *       after every grant, never above the engine's size and back to its start once everything
 *       closed; no spill scope or spill file left anywhere; the engine closes cleanly; nothing
 *       left under the engine's temp space and the spill root once it did.
 * </ul>
 *
 * Stateless; the checks of one iteration are made on its thread.
 */
final class FuzzChecks {

    private FuzzChecks() {}

    /** Checks every write of {@code it}, then the engine; closes the engine. */
    static Checks of(FuzzIteration it) throws Exception {
        Checks checks = new Checks();
        checks.phase("iteration").check("no hang", !it.hung, it.hung ? "writes still running at the deadline" : "every write ended",
                "every write ends before the deadline");
        if (it.hung) {
            return checks;
        }
        for (FuzzWrite w : it.writes) {
            write(checks.phase("w" + w.plan.index()), w);
        }
        checks.phase("engine");
        checks.check("engine within its size after every grant", it.engineOver.get() == 0,
                "peak " + it.enginePeak.get() + ", " + it.engineOver.get() + " samples over", "<= " + it.fuzzCase.engineBytes());
        checks.equal("engine memory back", it.engine.engineUsedBytes(), it.engineStart);
        checks.none("spill files", spillLeftovers(it), "no spill scope or spill file under any spill root or the engine's temp space");
        Throwable closeError = it.closeEngine();
        checks.check("engine closes cleanly", closeError == null, closeError == null ? "closed" : Errors.summary(closeError),
                "no leak reported by the engine");
        checks.none("temp files", files(List.of(it.engineDir, it.spillRoot)), "no file under the engine's temp space or the spill root");
        return checks;
    }

    private static void write(Checks checks, FuzzWrite w) throws Exception {
        boolean cancelledError = w.error instanceof WriteCancelledException;
        boolean typed = w.error instanceof ResourceExhaustedException || (cancelledError && w.cancelAttempted);
        checks.check("outcome", w.committed || typed, w.committed ? "committed" : describe(w.error),
                "committed, ResourceExhaustedException, or WriteCancelledException after a cancel");
        checks.check("close", w.closeError == null, w.closeError == null ? "closed" : describe(w.closeError), "close does not throw");
        if (w.cancelled && !w.commitStartedAtCancel) {
            checks.check("cancel honoured", !w.committed, w.outcome(), "a commit that starts after the cancel returned publishes nothing");
        }
        table(checks, w);
        MetricsSnapshot last = w.context == null ? null : w.context.snapshot();
        if (last != null) {
            checks.check("accounted bytes", w.context.isClosed() && last.reservedBytes() == 0 && w.context.holders().isEmpty(),
                    "closed " + w.context.isClosed() + ", reserved " + last.reservedBytes() + ", holders " + w.context.holders(),
                    "closed, 0 reserved, no holder");
            checks.check("accounted peak within the budget", last.peakReservedBytes() <= w.plan.budgetBytes(),
                    last.peakReservedBytes(), "<= " + w.plan.budgetBytes());
            checks.equal("cancellations metric", last.cancellations(), cancelledError || w.cancelled ? 1L : 0L);
        }
        List<String> held = new ArrayList<>(w.overBudget);
        for (ObservedProvider.Opened o : w.provider.opened()) {
            OptionalLong peak = o.peakUsedBytes();
            if (peak.isPresent() && peak.getAsLong() > w.plan.budgetBytes()) {
                held.add("allocator peak " + peak.getAsLong());
            }
        }
        checks.none("allocator within the budget", held, "the allocator's own count after every grant and its peak <= " + w.plan.budgetBytes());
        List<String> atClose = new ArrayList<>();
        for (ObservedProvider.Opened o : w.provider.opened()) {
            if (o.usedAtClose() != 0) {
                atClose.add(o.usedAtClose() < 0 ? "resources never closed" : o.usedAtClose() + " bytes at close");
            }
        }
        checks.none("allocator at close", atClose, "the allocator held 0 bytes when the runtime closed it");
    }

    private static void table(Checks checks, FuzzWrite w) throws Exception {
        FileStoreTable fresh = w.reopen();
        Long latest = fresh.snapshotManager().latestSnapshotId();
        if (w.committed) {
            List<String> actual = FuzzRows.read(fresh);
            String diff = FuzzRows.difference(w.rows.visible(), actual);
            checks.check("table content", latest != null && diff.isEmpty(),
                    (latest == null ? "no snapshot; " : "") + (diff.isEmpty() ? actual.size() + " rows, equal to the model" : diff),
                    "a snapshot, and the model of the rows (" + w.plan.mode().label() + ")");
            LocalOrphanFilesClean clean = new LocalOrphanFilesClean(fresh, Long.MAX_VALUE, true);
            checks.none("orphan files", clean.clean().getDeletedFilesPath().stream().map(Object::toString).toList(),
                    "no file Paimon's orphan-file clean would remove");
        } else {
            Set<String> now = Tables.files(w.table);
            Set<String> added = new TreeSet<>(now);
            added.removeAll(w.filesBefore);
            checks.check("table unchanged", latest == null && added.isEmpty(),
                    (latest == null ? "no snapshot" : "snapshot " + latest) + ", new files " + (added.size() > 5 ? added.size() + " " + List.copyOf(added).subList(0, 5) : added),
                    "no snapshot, no new file");
        }
    }

    private static String describe(Throwable t) {
        return t == null ? "not ended" : Errors.summary(t);
    }

    /** Spill scopes and spill files under the spill root, the engine's temp space and every root a write was given. */
    private static List<String> spillLeftovers(FuzzIteration it) {
        Set<Path> roots = new TreeSet<>(List.of(it.spillRoot, it.engineDir));
        for (FuzzWrite w : it.writes) {
            w.provider.opened().forEach(o -> roots.addAll(o.spill().roots()));
        }
        List<String> left = new ArrayList<>();
        for (Path p : walk(roots)) {
            if (p.getFileName().toString().startsWith(SpillScope.PREFIX) || p.toString().endsWith(".channel")) {
                left.add(p.toString());
            }
        }
        return left;
    }

    private static List<String> files(List<Path> roots) {
        return walk(roots).stream().filter(Files::isRegularFile).map(Path::toString).toList();
    }

    private static List<Path> walk(Iterable<Path> roots) {
        List<Path> all = new ArrayList<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(p -> !p.equals(root)).forEach(all::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all;
    }
}
