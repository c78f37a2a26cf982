package io.paimongov.tck;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one kit run, rule by rule, and the settings it ran under. Immutable.
 *
 * @param provider the provider's name
 * @param rules one result per rule selected, in {@link Rule} order, the rules the run never
 *     started included ({@link Status#NOT_RUN})
 * @param ending whether the run went through every rule, or how it ended before
 * @param settings the kit's settings in force for the run, each with its default and whether it
 *     makes the kit check less than the default does ({@link #weakened()})
 */
public record TckReport(String provider, List<RuleResult> rules, Ending ending, List<Setting> settings) {

    /**
     * One setting of the kit in force for a run ({@code governance.tck.*}, see docs/tck.md, "Sizes").
     *
     * @param key the system property, such as {@code governance.tck.tries}
     * @param value what was in force, as given (or the default's description when not given)
     * @param defaultValue the default, what the kit's figures and its self-tests are measured at
     * @param weakens whether the value makes the kit check less than the default does: fewer tries,
     *     rows, rounds or table modes; a looser cancel bound; a rule time limit above a rule's own,
     *     which lets a call that blocks that long pass instead of timing out
     */
    public record Setting(String key, String value, String defaultValue, boolean weakens) {
        public Setting {
            java.util.Objects.requireNonNull(key, "key");
            java.util.Objects.requireNonNull(value, "value");
            java.util.Objects.requireNonNull(defaultValue, "defaultValue");
        }

        /** {@code key=value (default d)}, with {@code , weakens the kit} when it does. */
        @Override
        public String toString() {
            return key + "=" + value + " (default " + defaultValue + (weakens ? ", weakens the kit" : "") + ")";
        }
    }

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
        settings = List.copyOf(settings);
    }

    /**
     * A report whose settings are those the system properties give now, for every rule.
     *
     * @deprecated give the settings the run had: the canonical constructor
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public TckReport(String provider, List<RuleResult> rules, Ending ending) {
        this(provider, rules, ending, SettingsInForce.of(TckSettings.fromSystemProperties(), java.util.EnumSet.allOf(Rule.class)));
    }

    /**
     * A run that went through every rule, its settings those the system properties give now.
     *
     * @deprecated give the ending and the settings the run had: the canonical constructor
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public TckReport(String provider, List<RuleResult> rules) {
        this(provider, rules, Ending.COMPLETED, SettingsInForce.of(TckSettings.fromSystemProperties(), java.util.EnumSet.allOf(Rule.class)));
    }

    /** The settings that made the kit check less than at its defaults; empty when none did. */
    public List<Setting> weakened() {
        return settings.stream().filter(Setting::weakens).toList();
    }

    /**
     * The required rules that were skipped: a provider does not conform while any is, whatever
     * passed. Each result's message says why.
     */
    public List<RuleResult> requiredSkipped() {
        return rules.stream().filter(r -> r.required() && r.status() == Status.SKIPPED).toList();
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
