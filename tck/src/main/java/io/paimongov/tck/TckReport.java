package io.paimongov.tck;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one kit run, rule by rule. Immutable.
 *
 * @param provider the provider's name
 * @param rules one result per rule, in {@link Rule} order
 */
public record TckReport(String provider, List<RuleResult> rules) {

    /** How one rule fared. */
    public enum Status {
        PASSED,
        FAILED,
        SKIPPED
    }

    /**
     * @param id the rule id, such as {@code MEM-1}
     * @param required whether an allocator must pass it
     * @param status passed, failed, or skipped (with the reason in {@code message})
     * @param message the failure or skip reason; empty when passed
     * @param millis how long the rule ran
     * @param reported what the rule's properties reported, such as jqwik's {@code seed} and {@code
     *     tries} and the kit's {@code cancel latency ms}; later values of a key replace earlier ones
     * @param output what the rule printed while it ran (logs of the write, the engine, jqwik), kept
     *     here rather than printed; empty when nothing was
     */
    public record RuleResult(
            String id, boolean required, Status status, String message, long millis, Map<String, String> reported, String output) {
        public RuleResult {
            reported = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(reported));
            output = output == null ? "" : output;
        }

        /** A result with nothing printed. */
        public RuleResult(String id, boolean required, Status status, String message, long millis, Map<String, String> reported) {
            this(id, required, status, message, millis, reported, "");
        }

        /** This result with {@code printed} as its output. */
        RuleResult withOutput(String printed) {
            return new RuleResult(id, required, status, message, millis, reported, printed);
        }
    }

    public TckReport {
        rules = List.copyOf(rules);
    }

    public long count(Status status) {
        return rules.stream().filter(r -> r.status() == status).count();
    }

    /** Whether every required rule passed. */
    public boolean requiredPassed() {
        return rules.stream().filter(RuleResult::required).allMatch(r -> r.status() == Status.PASSED);
    }

    /** The result of rule {@code id}. */
    public RuleResult rule(String id) {
        return rules.stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("no result for rule " + id));
    }
}
