package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;
import static io.paimongov.tck.TckWrites.assumeBudgetFits;
import static io.paimongov.tck.TckWrites.judge;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Optional;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** METRICS-*: the snapshot is consistent, exact where it says exact, and reaches the engine. */
interface MetricsRules extends TckWrites {

    /**
     * Each field against a source outside the runtime, never against another field of the
     * runtime's: the rows the kit wrote, the files the commit messages name, the spill files the
     * kit's sampler saw on disk, the budget the kit configured and what the kit saw the allocator
     * hold through the SPI ({@link Held}); so too each live snapshot ({@link LiveSnapshots}).
     */
    @Property
    @Heavy
    @Verifies(Rule.METRICS_1)
    default void required_METRICS1_theSnapshotIsConsistent(@ForAll("sizedWorkloads") Sized sized) throws Exception {
        TckRun run = write(sized, TckRun.Plan.none());
        judge(Rule.METRICS_1, () -> {
            assumeBudgetFits(run);
            MetricsSnapshot m = run.metrics;
            check(Rule.METRICS_1, m.budgetBytes() == sized.budgetBytes(),
                    "budgetBytes is " + m.budgetBytes() + "; governance.memory.budget is " + sized.budgetBytes());
            check(Rule.METRICS_1, m.inputRows() == run.rowsWritten, "inputRows is " + m.inputRows() + "; " + run.rowsWritten + " rows were written");
            check(Rule.METRICS_1, m.outputFiles() == run.messageFiles,
                    "outputFiles is " + m.outputFiles() + "; the commit messages name " + run.messageFiles + " files");
            check(Rule.METRICS_1, m.spillFiles() >= run.spillFilesSeen.size() && m.spillBytes() >= run.peakScopeBytes,
                    "the kit saw " + run.spillFilesSeen.size() + " spill files on disk, up to " + run.peakScopeBytes
                            + " bytes at once, yet spillFiles is " + m.spillFiles() + " and spillBytes " + m.spillBytes());
            check(Rule.METRICS_1, run.live.samples() > 0, "no live snapshot could be taken while the write ran");
            check(Rule.METRICS_1, run.live.agreed(), run.live.disagreements());
            check(Rule.METRICS_1, run.peakHeldBytes > 0, "the kit saw the write's allocator hold nothing, so no peak can be judged");
            check(Rule.METRICS_1, m.peakReservedBytes() >= run.peakHeldBytes,
                    "peakReservedBytes is " + m.peakReservedBytes() + "; the kit saw the write's allocator hold " + run.peakHeldBytes
                            + " bytes of pages and reservations at once");
            check(Rule.METRICS_1, m.reservedBytes() == 0, "reservedBytes is " + m.reservedBytes() + " after close");
            check(Rule.METRICS_1, m.spillFilesLeft() == 0, "spillFilesLeft is " + m.spillFilesLeft() + " after close");
        }, run);
    }

    @Example
    @Verifies(Rule.METRICS_2)
    default void required_METRICS2_exactFieldsAreExact() throws Exception {
        TckRun run = write(spilling(12), TckRun.Plan.none());
        judge(Rule.METRICS_2, () -> {
            MetricsSnapshot m = run.metrics;
            check(Rule.METRICS_2, run.outcome == TckRun.Outcome.COMMITTED, "the write did not commit: " + run.describe());
            check(Rule.METRICS_2, m.outputBytes() == run.messageBytes,
                    "outputBytes is " + m.outputBytes() + "; the committed files hold " + run.messageBytes);
            check(Rule.METRICS_2, m.outputFiles() == run.tableFiles && m.outputBytes() == run.tableFileBytes,
                    "outputFiles " + m.outputFiles() + " and outputBytes " + m.outputBytes() + "; the table's directory holds "
                            + run.tableFiles + " data files of " + run.tableFileBytes + " bytes");
            check(Rule.METRICS_2, m.inputBytes() == run.expectedInputBytes,
                    "inputBytes is " + m.inputBytes() + "; the rows' binary sizes add up to " + run.expectedInputBytes);
            // After the commit nothing runs: the runtime's books and what the kit counted through the
            // SPI must agree exactly, each field on its own (not one field against the others).
            MetricsSnapshot committed = run.committedSnapshot;
            check(Rule.METRICS_2, committed.pageBytes() == run.pageBytesAtCommit,
                    "after the commit pageBytes is " + committed.pageBytes() + "; the kit counts " + run.pageBytesAtCommit
                            + " bytes of pages handed out through the SPI and not released");
            check(Rule.METRICS_2, committed.estimatedBytes() == run.reservedBytesAtCommit,
                    "after the commit estimatedBytes is " + committed.estimatedBytes() + "; the kit counts " + run.reservedBytesAtCommit
                            + " bytes reserved through tryReserve and not released");
            check(Rule.METRICS_2, committed.reservedBytes() == run.heldAtCommit,
                    "after the commit reservedBytes is " + committed.reservedBytes() + "; the kit counts " + run.heldAtCommit
                            + " bytes of pages and reservations held through the SPI");
            check(Rule.METRICS_2, m.spillFiles() >= run.spillFilesSeen.size() && m.spillBytes() >= run.peakScopeBytes,
                    "spillFiles " + m.spillFiles() + " and spillBytes " + m.spillBytes() + "; the kit saw " + run.spillFilesSeen.size()
                            + " spill files on disk, up to " + run.peakScopeBytes + " bytes at once");
            check(Rule.METRICS_2, run.live.agreed(), run.live.disagreements());
        }, run);
    }

    @Example
    @Verifies(Rule.METRICS_3)
    default void optional_METRICS3_theEngineReceivesTheFinalSnapshot() throws Exception {
        Sized sized = spilling(13);
        try (TckSubject s = subject(sized.budgetBytes())) {
            TckRun run = TckRun.run(s, sized.workload(), "t", s.options("governance.memory.page-size", sized.pageSize()), TckRun.Plan.none());
            Optional<MetricsSnapshot> reported = s.engine.reportedMetrics();
            judge(Rule.METRICS_3, () -> {
                check(Rule.METRICS_3, reported.isPresent(), "the engine's metric system received nothing",
                        "MetricsReporter.writeClosed must pass the write's final snapshot to the engine's metric system.");
                check(Rule.METRICS_3, reported.get().equals(run.metrics),
                        "the engine received a snapshot that differs from the write's final one in "
                                + SnapshotDiff.between(reported.get(), run.metrics, "the engine got", "the write's is")
                                + "; the engine received " + reported.get() + ", the write's final snapshot is " + run.metrics);
            }, run);
        }
    }

    /**
     * The spilling workload written and committed on the rule's thread and closed on another
     * ({@link ClosedElsewhere}): the runtime then calls writeClosed on a thread that did not open
     * the write, and the engine's metric system must still receive the final snapshot unchanged
     * (docs/spi.md METRICS.5). Optional, as METRICS-3: only an engine whose metric system can be read
     * back shows what it received.
     */
    @Example
    @Verifies(Rule.METRICS_4)
    default void optional_METRICS4_theFinalSnapshotArrivesWhateverThreadCloses() throws Exception {
        Sized sized = spilling(14);
        ClosedElsewhere.Result result;
        try (TckSubject s = subject(sized.budgetBytes())) {
            result = ClosedElsewhere.run(s, sized.workload(), "governance.memory.page-size", sized.pageSize());
        }
        String where = "the write opened on thread '" + result.opener() + "' and closed on thread '" + ClosedElsewhere.CLOSER + "'";
        check(Rule.METRICS_4, result.closeError() == null, where + "; the close threw " + result.closeError());
        check(Rule.METRICS_4, result.received().isPresent(), where + "; the engine's metric system received nothing");
        java.util.List<String> differences = ClosedElsewhere.differences(result.received().get(), result.last());
        check(Rule.METRICS_4, differences.isEmpty(),
                where + "; what the engine's metric system received differs from the final snapshot in " + differences);
    }
}
