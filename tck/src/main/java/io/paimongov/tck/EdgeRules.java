package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.Reporter;
import org.opentest4j.TestAbortedException;

/**
 * MEM-14 to MEM-17: the allocator where the other MEM rules do not reach: sizes past 32 bits,
 * releases on interrupted threads, calls of many threads that really overlap, and pages handed out
 * again after a release, across writes sharing one engine. Each reads the engine's own counter
 * (the provider's counters without a standalone engine) and reports what it exercised.
 */
interface EdgeRules extends TckContext {

    @Example
    @Verifies(Rule.MEM_14)
    default void required_MEM14_sizesAreLongsOverTheWholeRange(Reporter reporter) {
        try (TckSubject s = subject(MemoryRules.MEM_BUDGET)) {
            WideSizes.requestsPastTheRoom(s);
        }
        List<String> budgets = new ArrayList<>();
        for (long budget : WideSizes.BUDGETS) {
            budgets.add(budget + ": " + WideSizes.budget(this, budget));
        }
        report(reporter, Rule.MEM_14, "budgets", String.join("; ", budgets));
    }

    @Example
    @Verifies(Rule.MEM_15)
    default void required_MEM15_releasesCompleteOnAnInterruptedThread(Reporter reporter) throws Exception {
        try (TckSubject s = subject(MemoryRules.MEM_BUDGET)) {
            report(reporter, Rule.MEM_15, "interrupted releases", InterruptedRelease.run(s));
        }
    }

    @Example
    @Verifies(Rule.MEM_16)
    default void required_MEM16_overlappingCallsKeepEveryPageAndByte(Reporter reporter) throws Exception {
        try (TckSubject s = subject(MemoryRules.MEM_BUDGET)) {
            OverlapRace race = new OverlapRace(s, OverlapRace.workersForThisMachine(), TckSettings.overlapRounds(), TckSettings.overlaps(), 16);
            String violation = race.run();
            report(reporter, Rule.MEM_16, "overlaps", race.summary());
            check(Rule.MEM_16, violation == null, violation + " (" + race.summary() + ")");
            String unjudged = race.shortOfOverlaps();
            if (unjudged != null) {
                // Not a pass: the calls did not overlap enough to show what the rule looks for.
                throw new TestAbortedException("[" + Rule.MEM_16.id() + "] skipped: " + unjudged);
            }
        }
    }

    /**
     * What a rule exercised: a report entry {@code name} (the runner's {@code reported}) and the same
     * line on standard output (the rule's {@code output}, or the console of a vendor's build).
     */
    private static void report(Reporter reporter, Rule rule, String name, String value) {
        reporter.publishValue(name, value);
        System.out.println("[" + rule.id() + "] " + name + ": " + value);
    }

    @Example
    @Verifies(Rule.MEM_17)
    default void required_MEM17_everyPageHeldIsChargedToTheEngine() {
        try (TckSubject s = subject(MemoryRules.MEM_BUDGET)) {
            new ChargedPages(s).run();
        }
    }
}
