package io.paimongov.tck;

/**
 * A required rule that could not give its verdict: it was skipped, and a provider does not conform
 * while a required rule is skipped. Thrown by {@link RequiredRules} so that a JUnit run of a
 * verification (a vendor's build) fails where the kit's runner and the {@code tck} command report
 * the provider not conforming; the runner reports the rule {@link TckReport.Status#SKIPPED} with
 * {@link #skipLine()}, as it reports an optional rule whose capability is missing.
 */
final class RequiredRuleSkipped extends AssertionError {

    private static final long serialVersionUID = 1L;

    private final String skipLine;

    /** @param skipLine {@code [MEM-11] skipped: <why>} */
    RequiredRuleSkipped(Rule rule, String skipLine, Throwable cause) {
        super(skipLine + "\n" + rule.id() + " is required: a provider conforms only when every required rule passes, so a skipped"
                + " required rule fails this run as it makes the tck command exit 1 (docs/tck.md, \"Required rules that are skipped\")",
                cause);
        this.skipLine = skipLine;
    }

    /** {@code [MEM-11] skipped: <why>}: the line the runner reports the rule skipped with. */
    String skipLine() {
        return skipLine;
    }
}
