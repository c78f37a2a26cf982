package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a failure message tells a vendor: the vendor's class, never the kit's wrappers; the first
 * failure when the cleanup after it failed too; the hint of the check that failed; the fields in
 * which two snapshots differ. And a passing report carries no library's banner in its output.
 */
class FailureMessagesTest {

    private final ClassLoader loader = getClass().getClassLoader();

    /**
     * Aliased pages fail a real write at the runtime's boundary ({@code AllocatorContractException});
     * the message names the vendor's allocator, not the kit's observer around it.
     */
    @Test
    void anAllocatorContractExceptionNamesTheVendorsAllocator() {
        TckReport.RuleResult r = TckRunner.runDiscovered("broken-aliasing", loader, Set.of(Rule.SPILL_1), null).rule("SPILL-1");

        assertEquals(TckReport.Status.FAILED, r.status(), r.message());
        String first = r.message().lines().findFirst().orElseThrow();
        assertTrue(first.contains("AllocatorContractException: the allocator io.paimongov.tck.BrokenProviders$Aliasing"), first);
        assertTrue(!first.contains("ObservedProvider"), first);
    }

    /**
     * MEM-1's accounting check fails, then the provider's close throws its leak error: the check
     * is the verdict, the leak follows it as a cleanup failure.
     */
    @Test
    void aCleanupThatFailsAfterTheVerdictIsAddedNotPutInItsPlace() {
        TckReport.RuleResult r = TckRunner.runDiscovered("broken-books-and-leak", loader, Set.of(Rule.MEM_1), null).rule("MEM-1");

        assertEquals(TckReport.Status.FAILED, r.status(), r.message());
        assertTrue(r.message().startsWith("[MEM-1] usedBytes() is "), r.message());
        assertTrue(r.message().contains("\nthen the cleanup failed too (suppressed): java.lang.IllegalStateException: "
                + MessageProviders.BooksOffAndLeakAtClose.LEAK), r.message());
    }

    /** Each failed check names what to look at for that check, not the hint of another check of the rule. */
    @Test
    void theHintIsTheFailedChecksOwn() {
        String pageSize = TckRunner.runDiscovered("broken-ignores-page-size", loader, Set.of(Rule.MEM_9), null).rule("MEM-9").message();
        assertTrue(pageSize.contains("(if this fails, check: read governance.memory.page-size from the options given to open();"), pageSize);
        assertTrue(!pageSize.contains("capacityBytes() must be positive"), pageSize);

        String overBudget = TckRunner.runDiscovered("broken-over-budget", loader, Set.of(Rule.MEM_1), null).rule("MEM-1").message();
        assertTrue(overBudget.contains("(if this fails, check: tryReserve must return false for what does not fit"), overBudget);
        assertTrue(!overBudget.contains("usedBytes() must be exactly"), overBudget);

        // Another check of the same rule, another hint.
        String books = TckRunner.runDiscovered("broken-books-and-leak", loader, Set.of(Rule.MEM_1), null).rule("MEM-1").message();
        assertTrue(books.contains("(if this fails, check: usedBytes() must be exactly live pages plus reservations"), books);
    }

    /**
     * The engine is told one row more than the write took: METRICS-3 names that field alone, with
     * both values, which differ by that one row.
     */
    @Test
    void metrics3SaysInWhichFieldsTheSnapshotsDiffer() {
        String m = TckRunner.runDiscovered("broken-wrong-metrics", loader, Set.of(Rule.METRICS_3), null).rule("METRICS-3").message();

        Matcher diff = Pattern.compile("differs from the write's final one in inputRows \\(the engine got (\\d+), the write's is (\\d+)\\);").matcher(m);
        assertTrue(diff.find(), m);
        assertEquals(Long.parseLong(diff.group(2)) + 1, Long.parseLong(diff.group(1)), m);
    }

    /**
     * Rules that pass print nothing of jqwik's into their output: no banner at each engine run
     * (jqwik 1.10 printed one telling its reader to disregard the results).
     */
    @Test
    void aPassingReportCarriesNoLibraryBanner() {
        TckReport report = TckRunner.runDiscovered("reference", loader, Set.of(Rule.MEM_1, Rule.MEM_3, Rule.MEM_5, Rule.DISCOVERY_1), null);

        assertTrue(report.conforms(), report.toString());
        for (TckReport.RuleResult r : report.rules()) {
            String output = r.output().toLowerCase(Locale.ROOT);
            assertTrue(!output.contains("jqwik") && !output.contains("disregard"), r.id() + " output: " + r.output());
        }
    }
}
