package io.paimongov.runtime.write;

import io.paimongov.runtime.config.Durations;
import io.paimongov.runtime.orphans.OpeningSweep;
import io.paimongov.runtime.orphans.OpeningSweep.Outcome;
import io.paimongov.runtime.orphans.OrphanFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orphan-file sweep a governed write runs when it opens ({@code governance.orphans.older-than}):
 * Paimon's clean ({@link OrphanFiles}) on the table, before the write has created any file, so the
 * write's own files are never candidates.
 *
 * <p>Live writes of this JVM. The margin protects the files of a write in another process. A write
 * of this JVM needs no margin: every governed write registers its table here while it is live (until
 * its release marks it done), and a write that opens while another write of the same table is live
 * in this JVM does not sweep at all ({@link Outcome#SKIPPED}). So a zero margin never takes the
 * uncommitted files of a concurrent write of the same JVM, and many tasks of one job opening on the
 * same table do not each list it. The registry holds each write weakly (a write dropped without
 * being closed stops counting once it is collected) and forgets finished ones at every opening.
 *
 * <p>A sweep that fails is logged and reported ({@link Outcome#FAILED}); the write goes on, because a
 * leftover file harms nobody until the next sweep.
 *
 * <p><b>Thread-safety:</b> the registry is guarded by its own monitor; {@link #sweep} runs on the
 * opening thread and holds no lock while Paimon's clean runs.
 */
final class OrphanSweep {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweep.class);

    /** Table location -> liveness of the governed writes open on it in this JVM. Guarded by itself. */
    private static final Map<String, List<BooleanSupplier>> LIVE = new HashMap<>();

    private OrphanSweep() {}

    /**
     * Sweeps {@code table} unless the option is off or another write of it is live in this JVM, then
     * registers the opening write (live while {@code live} says so).
     */
    static OpeningSweep sweep(FileStoreTable table, Optional<Duration> olderThan, BooleanSupplier live) {
        String location = table.location().toString();
        boolean another = register(location, live);
        if (olderThan.isEmpty()) {
            return new OpeningSweep(Outcome.OFF, null, "governance.orphans.older-than is off");
        }
        if (another) {
            return new OpeningSweep(Outcome.SKIPPED, null,
                    "another governed write of " + table.fullName() + " is live in this JVM");
        }
        try {
            OrphanFiles.Result result = OrphanFiles.clean(table, olderThan.get(), false);
            if (result.files() > 0) {
                LOG.info("removed {} orphan files ({} bytes) of {} older than {}{}", result.deleted(), result.bytes(),
                        table.fullName(), Durations.format(olderThan.get()),
                        result.notDeleted().isEmpty() ? "" : "; could not delete " + result.notDeleted());
            }
            return new OpeningSweep(Outcome.CLEANED, result, "");
        } catch (IOException | RuntimeException e) {
            LOG.warn("the orphan-file sweep of {} failed; the write goes on", table.fullName(), e);
            return new OpeningSweep(Outcome.FAILED, null, e.toString());
        }
    }

    /** Registers a live write of {@code location}; whether another one was live already. */
    private static boolean register(String location, BooleanSupplier live) {
        synchronized (LIVE) {
            LIVE.values().forEach(writes -> writes.removeIf(w -> !w.getAsBoolean()));
            LIVE.values().removeIf(List::isEmpty);
            List<BooleanSupplier> writes = LIVE.computeIfAbsent(location, l -> new ArrayList<>());
            boolean another = !writes.isEmpty();
            writes.add(live);
            return another;
        }
    }
}
