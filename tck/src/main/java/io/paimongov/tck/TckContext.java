package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;

/**
 * What every rule reads: the provider under test, the capabilities the verification declares, the
 * settings and a test's world, and the way a rule fails. The rules of each subject are an interface
 * over it ({@link MemoryRules}, {@link WriteRules}, ...), so that a verification class can hold one
 * subject's rules alone ({@link MemoryVerification}, ...) or all of them ({@link
 * GovernanceVerification}); {@link TckBase} implements it.
 */
interface TckContext {

    /** The provider under test; a fresh one or a shared one, as the vendor's supplier gives. */
    GovernanceProvider provider();

    /** Whether the verification declares {@code capability}; the optional rules that need it skip otherwise. */
    boolean supports(Capability capability);

    /** A world whose writes have {@code budgetBytes} each, on an engine of as much. */
    TckSubject subject(long budgetBytes);

    /** A world whose writes have {@code budgetBytes} each, on an engine of {@code engineBytes}. */
    TckSubject subject(long budgetBytes, long engineBytes);

    default TckSettings settings() {
        return TckSettings.fromSystemProperties();
    }

    /** Fails {@code rule} unless {@code ok}, with the rule's hint ({@link Rule#ifFails()}). */
    static void check(Rule rule, boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(rule.fail(what));
        }
    }

    /**
     * Fails {@code rule} unless {@code ok}, with the hint of this check: for a rule whose checks go
     * wrong for different reasons, what to look at when this one fails.
     */
    static void check(Rule rule, boolean ok, String what, String hint) {
        if (!ok) {
            throw new AssertionError(rule.fail(what, hint));
        }
    }
}
