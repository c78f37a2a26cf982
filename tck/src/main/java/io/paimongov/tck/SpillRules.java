package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;
import static io.paimongov.tck.TckWrites.judge;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.ResourceContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** SPILL-*: spill stays in its scope, within its budget, and goes away on every path. */
interface SpillRules extends TckWrites {

    @Example
    @Verifies(Rule.SPILL_1)
    default void required_SPILL1_aSuccessfulSpillingWriteLeavesNothing() throws Exception {
        TckRun run = write(spilling(1), TckRun.Plan.none());
        judge(Rule.SPILL_1, () -> {
            check(Rule.SPILL_1, run.outcome == TckRun.Outcome.COMMITTED, "the write did not commit: " + run.describe());
            check(Rule.SPILL_1, run.metrics.spillBytes() > 0, "the write was meant to spill and did not; the budget is not enforced");
            check(Rule.SPILL_1, run.problems.isEmpty(), "left behind: " + run.problems);
        }, run);
    }

    /**
     * A plain write first counts the page allocations the workload makes; the failure is then
     * injected at allocation {@code 1 + (count - 1) * fraction / 100} of the same workload. A write
     * that makes fewer allocations this time gets the failure at half that point, down to the first
     * allocation: every judged try has a failure that fired inside the write.
     */
    @Property
    @Heavy
    @Verifies(Rule.SPILL_2)
    default void required_SPILL2_aFailureAtARandomPointLeavesNothing(
            @ForAll @IntRange(min = 0, max = 99) int fraction, @ForAll long seed) throws Exception {
        Sized sized = spilling(seed);
        TckRun counted = write(sized, TckRun.Plan.none());
        judge(Rule.SPILL_2, () -> {
            check(Rule.SPILL_2, counted.outcome == TckRun.Outcome.COMMITTED || counted.problems.isEmpty(),
                    "a write that failed by itself (" + counted.describe() + ") left behind: " + counted.problems);
            check(Rule.SPILL_2, counted.outcome == TckRun.Outcome.COMMITTED,
                    "the write without an injected failure did not commit, so no failure can be placed in it: " + counted.describe());
            check(Rule.SPILL_2, counted.allocations > 0, "the write took no page, so no allocation failure can be injected");
        }, counted);
        int at = 1 + (counted.allocations - 1) * fraction / 100;
        // Every write's close is judged, those whose failure did not fire too.
        List<TckRun> runs = new java.util.ArrayList<>();
        TckRun run = write(sized, new TckRun.Plan(TckRun.Event.FAIL_ALLOCATION, at));
        runs.add(run);
        while (run.injected == null && at > 1) {
            at = (at + 1) / 2;
            run = write(sized, new TckRun.Plan(TckRun.Event.FAIL_ALLOCATION, at));
            runs.add(run);
        }
        TckRun last = run;
        int where = at;
        judge(Rule.SPILL_2, () -> {
            check(Rule.SPILL_2, last.injected != null,
                    "the failure planned at page allocation " + where + " never fired (" + last.allocations + " allocations)");
            check(Rule.SPILL_2, last.outcome == TckRun.Outcome.FAILED && causedBy(last.error, last.injected),
                    "the failure injected at page allocation " + where + " of " + counted.allocations + " did not fail the write: "
                            + last.describe());
            check(Rule.SPILL_2, last.problems.isEmpty(),
                    "after a failure injected at page allocation " + where + " of " + counted.allocations + " (" + last.describe()
                            + ") left behind: " + last.problems);
        }, runs.toArray(TckRun[]::new));
    }

    static boolean causedBy(Throwable error, Throwable cause) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t == cause || java.util.Arrays.asList(t.getSuppressed()).contains(cause)) {
                return true;
            }
        }
        return false;
    }

    @Example
    @Verifies(Rule.SPILL_3)
    default void required_SPILL3_anAbortLeavesNothingAndPublishesNothing() throws Exception {
        TckRun run = write(spilling(3), new TckRun.Plan(TckRun.Event.ABORT, 0));
        judge(Rule.SPILL_3, () -> {
            check(Rule.SPILL_3, run.outcome == TckRun.Outcome.ABORTED, "the write did not reach the abort: " + run.describe());
            check(Rule.SPILL_3, run.problems.isEmpty(), "after an abort, left behind: " + run.problems);
        }, run);
    }

    @Property
    @Heavy
    @Verifies(Rule.SPILL_4)
    default void required_SPILL4_aCancelLeavesNoSpill(@ForAll @IntRange(min = 1, max = 99) int percent, @ForAll long seed)
            throws Exception {
        Sized sized = spilling(seed);
        TckRun run = write(sized, new TckRun.Plan(TckRun.Event.CANCEL_AT_ROW, sized.workload().rows() * percent / 100));
        List<String> spillProblems = run.problemsAbout("spill", "temp space");
        judge(Rule.SPILL_4, () -> check(Rule.SPILL_4, spillProblems.isEmpty(),
                "after a cancel at " + percent + "% of the rows, left behind: " + spillProblems), run);
    }

    @Example
    @Verifies(Rule.SPILL_5)
    default void required_SPILL5_theSpillByteBudgetHolds() throws Exception {
        long limit = 1 << 20;
        Sized sized = spilling(5);
        TckRun run = write(sized, TckRun.Plan.none(), GovernanceOptions.SPILL_MAX_BYTES, "1m");
        boolean refused =
                run.error instanceof ResourceExhaustedException e && e.resource() == ResourceExhaustedException.Resource.SPILL_DISK;
        judge(Rule.SPILL_5, () -> {
            check(Rule.SPILL_5, run.outcome == TckRun.Outcome.COMMITTED || refused,
                    "the write neither committed nor was refused for spill disk: " + run.describe());
            check(Rule.SPILL_5, run.peakScopeBytes <= limit,
                    "the spill scope held " + run.peakScopeBytes + " bytes on disk; governance.spill.max-bytes is " + limit);
        }, run);
        try (TckSubject s = subject(2 << 20)) {
            try (EngineResources resources = s.open(GovernanceOptions.SPILL_MAX_BYTES, "1m")) {
                long given = resources.spill().maxBytes();
                check(Rule.SPILL_5, given <= limit, "SpillLocations.maxBytes() is " + given + " with governance.spill.max-bytes=1m");
            }
        }
    }

    @Example
    @Verifies(Rule.SPILL_6)
    default void required_SPILL6_scopesAreOwnerOnlyUnderTheSpillRoots() throws Exception {
        // The roots first: a write whose roots are missing fails without a scope, which says less.
        try (TckSubject s = subject(2 << 20)) {
            try (EngineResources resources = s.open()) {
                List<Path> roots = resources.spill().roots();
                check(Rule.SPILL_6, !roots.isEmpty(), "SpillLocations.roots() is empty");
                for (Path root : roots) {
                    check(Rule.SPILL_6, Files.isDirectory(root) && Files.isWritable(root), "spill root " + root + " is not a writable directory",
                            "every directory SpillLocations.roots() names must exist and be writable when open() returns: create it there.");
                }
            }
        }
        TckRun run = write(spilling(6), TckRun.Plan.none());
        judge(Rule.SPILL_6, () -> {
            check(Rule.SPILL_6, run.scopePermissions != null, "the spill scope was never seen on disk during the write");
            check(Rule.SPILL_6, run.scopePermissions.equals("rwx------"), "the spill scope's permissions are " + run.scopePermissions,
                    "spill roots must be on a file system with POSIX permissions, or the provider must say why not.");
            check(Rule.SPILL_6, run.scopeUnderRoots, "the spill scope " + run.scope + " is not directly under a spill root of the provider",
                    "SpillLocations.roots() must name the directories the scopes are made in: the configured governance.spill.dirs or the"
                            + " engine's own.");
        }, run);
    }

    @Example
    @Verifies(Rule.SPILL_7)
    default void required_SPILL7_scopesOfADeadProcessAreSwept() throws Exception {
        try (TckSubject s = subject(4 << 20)) {
            List<Path> roots;
            try (EngineResources resources = s.open()) {
                roots = resources.spill().roots();
            }
            Process finished = new ProcessBuilder("java", "-version").redirectErrorStream(true).start();
            finished.getInputStream().readAllBytes();
            finished.waitFor();
            for (Path root : roots) {
                Path dead = root.resolve(SpillScope.PREFIX + finished.pid() + "-tck");
                Files.createDirectories(dead);
                Files.writeString(dead.resolve("left-by-a-crash.channel"), "x");
            }
            try (ResourceContext ignored = ResourceContext.open("tck-sweep", s.provider, s.options(), s.environment())) {
                for (Path root : roots) {
                    Path dead = root.resolve(SpillScope.PREFIX + finished.pid() + "-tck");
                    check(Rule.SPILL_7, !Files.exists(dead), "the scope of dead process " + finished.pid() + " is still at " + dead);
                }
            }
        }
    }

    /**
     * A first write of the spilling workload, unwatched, so that what the JVM does once (a codec's
     * native library unpacked into java.io.tmpdir) is not taken for the write's; then the same rows
     * again while {@link DiskWatch} watches the kit's directory, java.io.tmpdir, the working
     * directory and the spill roots the provider named (docs/spi.md SPILL.8).
     */
    @Example
    @Verifies(Rule.SPILL_8)
    default void required_SPILL8_spillStaysUnderTheConfiguredDirectories() throws Exception {
        Sized sized = spilling(8);
        try (TckSubject s = subject(sized.budgetBytes())) {
            GovernanceOptions options = s.options("governance.memory.page-size", sized.pageSize());
            TckRun unwatched = TckRun.run(s, sized.workload(), "unwatched", options, TckRun.Plan.none());
            Path engineSpace = s.dir.resolve("engine");
            List<Path> named = s.provider.opened().stream().flatMap(o -> o.vendor.spill().roots().stream()).distinct().toList();
            TckRun run;
            List<DiskWatch.Found> outside;
            long overflows;
            List<String> where;
            try (DiskWatch watch = DiskWatch.start(s, java.util.Set.of(s.spillRoot, s.warehouse, engineSpace), named)) {
                run = TckRun.run(s, sized.workload(), "watched", options, TckRun.Plan.none());
                outside = watch.stop();
                overflows = watch.overflows();
                where = outside.stream().limit(5)
                        .map(f -> "in " + f.place().name() + ": " + f.path()
                                + (watch.entriesUnder(f.path()) > 1 ? " (and " + (watch.entriesUnder(f.path()) - 1) + " entries in it)" : ""))
                        .toList();
            }
            TckRun watched = run;
            judge(Rule.SPILL_8, () -> {
                check(Rule.SPILL_8, overflows == 0,
                        "the file system watch lost events " + overflows + " times (its queue overflowed: much else was"
                                + " created on this machine at once), so where the write's files went is not known; run SPILL-8 again");
                check(Rule.SPILL_8, outside.isEmpty(),
                        "the write created entries outside the spill directories it was given (governance.spill.dirs "
                                + s.spillRoot + ", the engine's temp space " + engineSpace + ") and the table's warehouse: "
                                + String.join("; ", where) + (outside.size() > 5 ? "; and " + (outside.size() - 5) + " more" : ""));
                check(Rule.SPILL_8, watched.outcome == TckRun.Outcome.COMMITTED && watched.metrics.spillBytes() > 0,
                        "the watched write did not commit after spilling, so where its spill goes was not seen: " + watched.describe()
                                + ", spillBytes " + (watched.metrics == null ? "unknown" : watched.metrics.spillBytes()));
            }, unwatched, watched);
        }
    }
}
