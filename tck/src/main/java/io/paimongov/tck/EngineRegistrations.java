package io.paimongov.tck;

import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * CANCEL-6's scenario (docs/spi.md RES.5): {@link #WRITES} small governed writes, one after
 * another, on one standalone engine and one table, every {@link #CANCEL_EVERY}th cancelled after its
 * rows instead of committed, and what the engine says writes have registered with it ({@link
 * StandaloneEngine#registrations()}) read before the first, after the first and after the last. A
 * registration made per write and never removed shows as {@code WRITES - 1} more of its kind after
 * the last write than after the first; what an engine keeps once (a listener per task, the gauges
 * of its last write) is there after the first write already and does not grow.
 *
 * <p>Not thread-safe: one rule's thread runs it.
 */
final class EngineRegistrations {

    /** Writes on one engine; a registration leaked per write is then {@code WRITES - 1} more. */
    static final int WRITES = 50;
    /** Every this many-th write is cancelled after its rows, so the cancel's release path counts too. */
    static final int CANCEL_EVERY = 5;
    /** Rows of each write: enough to open a writer and take pages, few enough for 50 writes to be quick. */
    static final int ROWS = 200;

    /** The engine's registrations before any write, after the first and after the last. */
    record Counts(Map<String, Integer> before, Map<String, Integer> afterFirst, Map<String, Integer> afterLast) {

        /** Each kind that grew from the first write to the last, as {@code "49 more cancel listeners"}. */
        List<String> grown() {
            List<String> grown = new ArrayList<>();
            for (String kind : new TreeSet<>(afterLast.keySet())) {
                int more = afterLast.get(kind) - afterFirst.getOrDefault(kind, 0);
                if (more > 0) {
                    grown.add(more + " more " + kind);
                }
            }
            return grown;
        }
    }

    private EngineRegistrations() {}

    /** Runs the writes in {@code s} and reads the engine's registrations around them. */
    static Counts count(TckSubject s) throws Exception {
        Map<String, Integer> before = read(s.engine);
        Workload shape = workload(0);
        FileStoreTable table = shape.createTable(s.warehouse, "registrations");
        Map<String, Integer> afterFirst = null;
        for (int i = 1; i <= WRITES; i++) {
            write(s, table, i);
            if (i == 1) {
                afterFirst = read(s.engine);
            }
        }
        return new Counts(before, afterFirst, read(s.engine));
    }

    /** Write {@code i} of {@link #WRITES}: its rows, then a commit, or a cancel every {@link #CANCEL_EVERY}th. */
    private static void write(TckSubject s, FileStoreTable table, int i) throws Exception {
        boolean cancel = i % CANCEL_EVERY == 0;
        ResourceContext context = ResourceContext.open("tck-registrations-" + i, s.provider,
                s.options("governance.memory.page-size", "16k"), s.environment());
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, context)) {
            for (InternalRow row : workload(i).rowsInOrder()) {
                write.write(row);
            }
            if (cancel) {
                write.cancel("tck: CANCEL-6 cancels write " + i + " of " + WRITES);
            } else {
                write.prepareCommit().commit();
            }
        } catch (Exception e) {
            throw new AssertionError(Rule.CANCEL_6.fail("write " + i + " of " + WRITES + (cancel ? " (cancelled)" : "")
                    + " failed: " + e), e);
        }
    }

    /** The rows of write {@code i}: one partition, one bucket, keys overwritten across writes. */
    private static Workload workload(int i) {
        return new Workload(6000L + i, ROWS, ROWS, 1, 1, "deduplicate", "avro", 16);
    }

    private static Map<String, Integer> read(StandaloneEngine engine) {
        Optional<Map<String, Integer>> counts = engine.registrations();
        TckContext.check(Rule.CANCEL_6, counts.isPresent(),
                "the engine " + engine.getClass().getName() + " stopped counting its registrations (StandaloneEngine.registrations() is empty)");
        return new TreeMap<>(counts.get());
    }

    /**
     * Why CANCEL-6 cannot run for {@code verification}: the provider has no standalone engine, or its
     * engine does not count what writes register with it; null when it can ({@link OptionalRules#unmetNeed}).
     */
    static String unmetNeed(TckBase verification) {
        if (!verification.hasStandaloneEngine()) {
            return "the provider has no standalone engine (GovernanceProvider.standalone is empty), so the kit cannot count what"
                    + " writes register with it";
        }
        if (!verification.probeEngine(engine -> engine.registrations().isPresent())) {
            return "the provider's standalone engine does not count what writes register with it (StandaloneEngine.registrations()"
                    + " is empty; see docs/tck.md, Upgrading)";
        }
        return null;
    }
}
