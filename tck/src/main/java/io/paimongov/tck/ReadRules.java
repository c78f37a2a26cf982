package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.runtime.read.GovernedSplitReader;
import io.paimongov.runtime.read.GovernedTableRead;
import io.paimongov.runtime.read.OutputBatch;
import io.paimongov.runtime.read.ReadCancelledException;
import io.paimongov.runtime.read.ReadSnapshot;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.ResourceExhaustedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import net.jqwik.api.Example;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader.RecordIterator;
import org.apache.paimon.table.source.Split;

/**
 * READ-*: a governed read ({@link GovernedTableRead}) of a primary-key table of {@value #RUNS}
 * overlapping sorted runs, written by plain Paimon ({@link SortedRunTable}), under a budget of
 * {@value #BUDGET} bytes, far below what one merge of every run holds, so that the read merges in
 * passes through spilled runs. Its readers are reservations of kind {@code READ}, its output
 * batches of kind {@code READ_OUTPUT} (clause ALLOC.16).
 */
interface ReadRules extends TckContext {

    int RUNS = 24;
    int ROWS_PER_RUN = 200;
    int VALUE_BYTES = 512;
    long BUDGET = 3L << 20;
    /** The output batch size of READ-4. */
    int BATCH_ROWS = 100;

    @Example
    @Verifies(Rule.READ_1)
    default void required_READ1_aMergeOfManyRunsIsChargedToTheEngineAndStaysInTheBudget() throws Exception {
        try (TckSubject s = subject(BUDGET)) {
            SortedRunTable.Written t = table(s, "read1");
            try (ResourceContext context = ResourceContext.open("tck-read1", s.provider, s.options(), s.environment());
                    GovernedTableRead read = GovernedTableRead.open(t.table(), context)) {
                Map<Integer, String> rows = new TreeMap<>();
                readRows(read, rows, s, Rule.READ_1);
                ReadSnapshot m = read.metrics();
                check(Rule.READ_1, m.sectionsInPasses() > 0, "the read of " + RUNS + " runs under a budget of " + BUDGET
                        + " bytes did not merge in passes (" + m + "): the runs' readers were not charged to the budget");
                check(Rule.READ_1, s.provider.capacityViolations() == 0,
                        "an allocator held more than its capacity after a grant, " + s.provider.capacityViolations() + " times");
                check(Rule.READ_1, s.provider.engineViolations() == 0,
                        "the engine's counter passed its memory after a grant, " + s.provider.engineViolations() + " times");
                check(Rule.READ_1, rows.equals(t.model()), "the read gave rows that differ from the model's");
            }
        }
    }

    @Example
    @Verifies(Rule.READ_2)
    default void required_READ2_aReadInPassesGivesTheRowsOfAReadAtOnce() throws Exception {
        Map<Integer, String> inPasses;
        Map<Integer, String> atOnce;
        SortedRunTable.Written t;
        try (TckSubject s = subject(BUDGET)) {
            t = table(s, "read2");
            inPasses = readAll(s, t, "tck-read2-passes", Rule.READ_2);
            check(Rule.READ_2, !inPasses.isEmpty(), "the read in passes gave no rows");
        }
        try (TckSubject s = subject(BUDGET * 16)) {
            SortedRunTable.Written same = table(s, "read2");
            atOnce = readAll(s, same, "tck-read2-at-once", Rule.READ_2);
        }
        check(Rule.READ_2, inPasses.equals(t.model()), "the read in passes gave rows that differ from the model's");
        check(Rule.READ_2, atOnce.equals(inPasses), "the read at once and the read in passes gave different rows");
    }

    @Example
    @Verifies(Rule.READ_3)
    default void required_READ3_aReadCancelledAtAnyPointStopsAndLeavesNothing() throws Exception {
        int grants;
        try (TckSubject s = subject(BUDGET)) {
            SortedRunTable.Written t = table(s, "read3");
            AtomicInteger counted = new AtomicInteger();
            s.provider.afterReserveGrant = counted::incrementAndGet;
            ResourceExhaustedException refused = null;
            try {
                readAll(s, t, "tck-read3-count", null);
            } catch (ResourceExhaustedException e) {
                refused = e;
            }
            grants = counted.get();
            check(Rule.READ_3, s.engine.engineUsedBytes() == s.engineStart, "after a whole read closed, the engine's counter is at "
                    + s.engine.engineUsedBytes() + "; it started at " + s.engineStart + (refused == null ? "" : " (the read was refused: "
                    + refused.getMessage() + ")"));
            if (refused != null) {
                throw refused;
            }
        }
        check(Rule.READ_3, grants > 4, "a whole read took " + grants + " reservations; too few to cancel it between them");
        for (int at : new int[] {1, 2, grants / 3, grants / 2, grants - 1}) {
            try (TckSubject s = subject(BUDGET)) {
                SortedRunTable.Written t = table(s, "read3");
                AtomicInteger seen = new AtomicInteger();
                try (ResourceContext context = ResourceContext.open("tck-read3", s.provider, s.options(), s.environment())) {
                    s.provider.afterReserveGrant = () -> {
                        if (seen.incrementAndGet() == at) {
                            context.cancel("cancelled by the kit at reservation " + at);
                        }
                    };
                    ReadCancelledException cancelled = null;
                    try (GovernedTableRead read = GovernedTableRead.open(t.table(), context)) {
                        readRows(read, new TreeMap<>(), s, null);
                    } catch (ReadCancelledException e) {
                        cancelled = e;
                    }
                    s.provider.afterReserveGrant = () -> {};
                    check(Rule.READ_3, cancelled != null, "a read cancelled at reservation " + at + " of " + grants + " did not stop");
                    check(Rule.READ_3, s.engine.engineUsedBytes() == s.engineStart, "after the read cancelled at reservation " + at
                            + " closed, the engine's counter is at " + s.engine.engineUsedBytes() + "; it started at " + s.engineStart);
                    List<Path> left = spillFiles(context);
                    check(Rule.READ_3, left.isEmpty(), "after the read cancelled at reservation " + at + " closed, its spill files are left: " + left);
                }
            }
        }
    }

    @Example
    @Verifies(Rule.READ_4)
    default void required_READ4_outputBatchesStayChargedUntilClosedAndAreGivenBackOnce() throws Exception {
        try (TckSubject s = subject(BUDGET * 4)) {
            SortedRunTable.Written t = table(s, "read4");
            try (ResourceContext context = ResourceContext.open("tck-read4", s.provider, s.options(), s.environment());
                    GovernedTableRead read = GovernedTableRead.open(t.table(), context)) {
                List<Split> splits = read.plan();
                // The plan's own charge stays until the read closes: the batches are judged against the counter after it.
                long planned = s.engine.engineUsedBytes();
                List<OutputBatch> kept = new ArrayList<>();
                Map<Integer, String> rows = new TreeMap<>();
                for (Split split : splits) {
                    try (GovernedSplitReader reader = read.reader(split)) {
                        OutputBatch batch;
                        while ((batch = reader.nextBatch(BATCH_ROWS)) != null) {
                            kept.add(batch);
                            for (InternalRow row : batch.rows()) {
                                rows.put(row.getInt(0), row.getString(1).toString());
                            }
                        }
                    }
                }
                check(Rule.READ_4, rows.equals(t.model()), "the output batches hold rows that differ from the model's");
                long charged = kept.stream().mapToLong(OutputBatch::bytes).sum();
                long up = s.engine.engineUsedBytes() - planned;
                check(Rule.READ_4, up >= charged, "the engine's counter is up by " + up + " while the engine holds " + kept.size()
                        + " output batches of " + charged + " bytes: output batches are not charged to the engine");
                for (int i = 0; i < kept.size(); i++) {
                    long before = s.engine.engineUsedBytes();
                    kept.get(i).close();
                    long after = s.engine.engineUsedBytes();
                    kept.get(i).close();
                    long again = s.engine.engineUsedBytes();
                    check(Rule.READ_4, before - after == kept.get(i).bytes(), "closing output batch " + i + " of " + kept.get(i).bytes()
                            + " bytes moved the engine's counter by " + (before - after));
                    check(Rule.READ_4, again == after, "closing output batch " + i + " a second time moved the engine's counter by "
                            + (after - again));
                }
                check(Rule.READ_4, s.engine.engineUsedBytes() == planned, "after every output batch closed, the engine's counter is at "
                        + s.engine.engineUsedBytes() + "; it was at " + planned + " once the read had planned");
            }
            check(Rule.READ_4, s.engine.engineUsedBytes() == s.engineStart, "after the read and its context closed, the engine's counter is at "
                    + s.engine.engineUsedBytes() + "; it started at " + s.engineStart);
        }
    }

    /** A table of {@value #RUNS} runs in the subject's warehouse; the same seed gives the same table. */
    private static SortedRunTable.Written table(TckSubject s, String name) throws Exception {
        return SortedRunTable.write(s.warehouse, name, Map.of(), RUNS, ROWS_PER_RUN, ROWS_PER_RUN * 4, VALUE_BYTES, 20, 5);
    }

    /**
     * Reads every row in a context of its own; with a {@code rule}, checks for it at each batch that
     * the engine is charged for what the allocators hold.
     */
    private static Map<Integer, String> readAll(TckSubject s, SortedRunTable.Written t, String name, Rule rule) throws Exception {
        Map<Integer, String> rows = new TreeMap<>();
        try (ResourceContext context = ResourceContext.open(name, s.provider, s.options(), s.environment());
                GovernedTableRead read = GovernedTableRead.open(t.table(), context)) {
            readRows(read, rows, s, rule);
        }
        return rows;
    }

    private static void readRows(GovernedTableRead read, Map<Integer, String> rows, TckSubject s, Rule rule) throws Exception {
        for (Split split : read.plan()) {
            try (GovernedSplitReader reader = read.reader(split)) {
                RecordIterator<InternalRow> batch;
                while ((batch = reader.readBatch()) != null) {
                    if (rule != null) {
                        charged(s, rule, "a batch of the read");
                    }
                    collect(batch, rows);
                }
            }
        }
    }

    private static void collect(RecordIterator<InternalRow> batch, Map<Integer, String> rows) throws IOException {
        InternalRow row;
        while ((row = batch.next()) != null) {
            rows.put(row.getInt(0), row.getString(1).toString());
        }
        batch.releaseBatch();
    }

    /** The engine's counter is up by at least what the allocators granted and hold (as the kit counts it). */
    private static void charged(TckSubject s, Rule rule, String at) {
        long held = s.provider.heldNow();
        long engine = s.engine.engineUsedBytes() - s.engineStart;
        check(rule, engine >= held, "at " + at + " the allocators hold " + held + " bytes but the engine counter is up by " + engine
                + ": " + (held - engine) + " bytes the read holds are not charged to the engine");
    }

    /** Spill files in the context's scope now (its lease aside). */
    private static List<Path> spillFiles(ResourceContext context) throws IOException {
        Path scope = context.spillScopeDir();
        if (!Files.exists(scope)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(scope)) {
            return files.filter(f -> Files.isRegularFile(f) && !f.getFileName().toString().equals(SpillScope.LEASE)).toList();
        }
    }
}
