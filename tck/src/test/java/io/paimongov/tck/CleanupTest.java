package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * A rule's checks are its verdict and a cleanup that failed (a write's close) follows them: first
 * when every check held or the try was discarded, suppressed in the check that failed otherwise.
 */
class CleanupTest {

    private final AssertionError close = new AssertionError(Rule.SPILL_1.closeFailed("the write's close threw x"));

    @Test
    void aCleanupThatFailedFailsTheRuleWhoseChecksHeld() {
        assertSame(close, assertThrows(AssertionError.class, () -> Cleanup.judgeThen(close, () -> {})));
        assertDoesNotThrow(() -> Cleanup.judgeThen(null, () -> {}));
    }

    @Test
    void aFailedCheckStaysTheVerdictWithTheCleanupSuppressed() {
        AssertionError check = new AssertionError("[SPILL-1] left behind: [scratch-1]");
        AssertionError thrown = assertThrows(AssertionError.class, () -> Cleanup.judgeThen(close, () -> {
            throw check;
        }));
        assertSame(check, thrown);
        assertArrayEquals(new Throwable[] {close}, thrown.getSuppressed());
        String line = TckRunner.ruleLine(Rule.SPILL_1, TckReport.Status.FAILED, thrown);
        assertTrue(line.startsWith("[SPILL-1] left behind: [scratch-1]\nthen the cleanup failed too (suppressed): "), line);
    }

    /** A try the checks discard would hide the close's failure: the close fails the rule instead. */
    @Test
    void aDiscardedTryDoesNotHideTheCleanup() {
        TestAbortedException discarded = new TestAbortedException("budget too small");
        assertSame(close, assertThrows(AssertionError.class, () -> Cleanup.judgeThen(close, () -> {
            throw discarded;
        })));
        assertSame(discarded, assertThrows(TestAbortedException.class, () -> Cleanup.judgeThen(null, () -> {
            throw discarded;
        })));
    }

    /** The close's failure cites the rule's clauses and RES.4, and keeps the close's error as its cause. */
    @Test
    void aWritesCloseFailureCitesRes4() {
        assertTrue(close.getMessage().startsWith("[SPILL-1] the write's close threw x (if this fails, check: the close's error names"),
                close.getMessage());
        assertTrue(close.getMessage().endsWith("contract: docs/spi.md SPILL.3, RES.4)"), close.getMessage());
    }
}
