package io.paimongov.tck;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one kit run, rule by rule. Immutable.
 *
 * @param provider the provider's name
 * @param rules one result per rule selected, in {@link Rule} order, the rules the run never
 *     started included ({@link Status#NOT_RUN})
 * @param ending whether the run went through every rule, or how it ended before
 */
public record TckReport(String provider, List<RuleResult> rules, Ending ending) {

    /** How one rule fared. */
    public enum Status {
        PASSED,
        /** A check of the rule failed, or the rule threw; the message says which. */
        FAILED,
        /** Skipped with its reason in the message: an optional rule whose capability is not declared. */
        SKIPPED,
        /**
         * Still running when its time limit, the run's, or a stop of the run came; the message holds
         * the stacks of the threads alive then, the rule's own first. Its thread was interrupted and
         * left behind. A failure: it counts as failed.
         */
        TIMED_OUT,
        /** Never started: the run's time limit passed or the run was stopped before its turn. */
        NOT_RUN
    }

    /** How the run ended. */
    public enum Ending {
        /** Every rule selected ran to its verdict (some may have timed out on their own limits). */
        COMPLETED,
        /** The run's time limit ({@code governance.tck.run-timeout-s}) passed before every rule ran. */
        RUN_TIMEOUT,
        /** The run was stopped from outside ({@link TckProgress#stop}: the CLI on SIGTERM or SIGINT). */
        STOPPED
    }

    /**
     * @param id the rule id, such as {@code MEM-1}
     * @param required whether an allocator must pass it
     * @param status passed, failed, skipped, timed out or not run, with the reason in {@code message}
     * @param message the failure, time-out, skip or not-run reason; empty when passed
     * @param millis how long the rule ran
     * @param reported what the rule's properties reported, such as jqwik's {@code seed} and {@code
     *     tries} and the kit's {@code cancel latency ms}; later values of a key replace earlier ones
     * @param output what the rule printed while it ran (logs of the write, the engine), kept here
     *     rather than printed; empty when nothing was
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

    /** A run that went through every rule. */
    public TckReport(String provider, List<RuleResult> rules) {
        this(provider, rules, Ending.COMPLETED);
    }

    public long count(Status status) {
        return rules.stream().filter(r -> r.status() == status).count();
    }

    /** Rules that failed, those that timed out included. */
    public long failures() {
        return count(Status.FAILED) + count(Status.TIMED_OUT);
    }

    /** Whether every required rule passed. */
    public boolean requiredPassed() {
        return rules.stream().filter(RuleResult::required).allMatch(r -> r.status() == Status.PASSED);
    }

    /**
     * Whether the provider conforms as far as the rules selected go: the run went through every
     * rule, every required one passed and no rule failed or timed out (an optional rule may be
     * skipped, not fail).
     */
    public boolean conforms() {
        return ending == Ending.COMPLETED && requiredPassed() && failures() == 0 && count(Status.NOT_RUN) == 0;
    }

    /** The result of rule {@code id}. */
    public RuleResult rule(String id) {
        return rules.stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("no result for rule " + id));
    }
}
