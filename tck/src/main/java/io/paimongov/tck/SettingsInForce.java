package io.paimongov.tck;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The kit's settings in force for a run, as its reports record them ({@link TckReport#settings()}),
 * each with its default and whether it makes the kit check less than the default does. The
 * defaults are what docs/tck.md's figures and the kit's self-tests are measured at, so a pass at
 * weaker settings says less than a pass at the defaults:
 *
 * <ul>
 *   <li>tries, write tries, rows, race rounds, overlap rounds, overlaps: fewer than the default;
 *   <li>the cancel bound: above the default (a looser bound);
 *   <li>the table modes: fewer than every readable mode;
 *   <li>the rule time limit: above the own limit of a rule run, which lets a call that blocks that
 *       long pass instead of timing out (a limit below it only turns slow rules into failures).
 * </ul>
 *
 * The run's time limit never weakens the kit: the rules keep their own limits, and the rules the
 * run does not reach are reported not run, which fails the run. Stateless.
 */
final class SettingsInForce {

    private SettingsInForce() {}

    /** The settings {@code s} (and the system properties it does not hold) give a run of {@code rules}. */
    static List<TckReport.Setting> of(TckSettings s, Collection<Rule> rules) {
        List<TckReport.Setting> settings = new ArrayList<>();
        settings.add(atLeast(TckSettings.TRIES, s.tries(), TckSettings.DEFAULT_TRIES));
        settings.add(atLeast(TckSettings.WRITE_TRIES, s.writeTries(), TckSettings.DEFAULT_WRITE_TRIES));
        settings.add(atLeast(TckSettings.ROWS, s.rows(), TckSettings.DEFAULT_ROWS));
        settings.add(atLeast(TckSettings.RACE_ROUNDS, s.raceRounds(), TckSettings.DEFAULT_RACE_ROUNDS));
        settings.add(atLeast(TckSettings.OVERLAP_ROUNDS, TckSettings.overlapRounds(), TckSettings.DEFAULT_OVERLAP_ROUNDS));
        settings.add(atLeast(TckSettings.OVERLAPS, TckSettings.overlaps(), TckSettings.DEFAULT_OVERLAPS));
        // A larger bound lets slower cancels pass.
        settings.add(new TckReport.Setting(TckSettings.CANCEL_BOUND_MS, Long.toString(s.cancelBoundMillis()),
                Integer.toString(TckSettings.DEFAULT_CANCEL_BOUND_MS), s.cancelBoundMillis() > TckSettings.DEFAULT_CANCEL_BOUND_MS));
        settings.add(tableModes());
        settings.add(ruleTimeout(s, rules));
        settings.add(runTimeout(s, rules));
        return settings;
    }

    private static TckReport.Setting atLeast(String key, long value, long defaultValue) {
        return new TckReport.Setting(key, Long.toString(value), Long.toString(defaultValue), value < defaultValue);
    }

    private static TckReport.Setting tableModes() {
        List<String> every = TableModes.labels().stream().filter(l -> TableModes.of(l).readable()).toList();
        String given = System.getProperty(TableModes.PROPERTY);
        if (given == null || given.isBlank()) {
            return new TckReport.Setting(TableModes.PROPERTY, String.join(",", every), String.join(",", every), false);
        }
        try {
            List<TableModes> modes = TableModes.forWriteRules();
            boolean fewer = !modes.stream().map(TableModes::label).toList().containsAll(every);
            return new TckReport.Setting(TableModes.PROPERTY, given.strip(), String.join(",", every), fewer);
        } catch (IllegalArgumentException e) {
            // The WRITE rules fail with this error; the setting is recorded as given.
            return new TckReport.Setting(TableModes.PROPERTY, given.strip(), String.join(",", every), false);
        }
    }

    private static TckReport.Setting ruleTimeout(TckSettings s, Collection<Rule> rules) {
        TckSettings own = ownLimits(s);
        long least = Long.MAX_VALUE;
        long most = 0;
        for (Rule rule : rules) {
            Optional<Method> method = method(rule);
            if (method.isPresent()) {
                long limit = TimeLimits.ruleSeconds(rule, method.get(), own);
                least = Math.min(least, limit);
                most = Math.max(most, limit);
            }
        }
        String each = most == 0 ? "each rule's own"
                : least == most ? "each rule's own: " + least + " s" : "each rule's own: " + least + " to " + most + " s";
        if (s.ruleTimeoutSeconds() == 0) {
            return new TckReport.Setting(TckSettings.RULE_TIMEOUT_S, each, each, false);
        }
        return new TckReport.Setting(TckSettings.RULE_TIMEOUT_S, Long.toString(s.ruleTimeoutSeconds()), each,
                most > 0 && s.ruleTimeoutSeconds() > least);
    }

    private static TckReport.Setting runTimeout(TckSettings s, Collection<Rule> rules) {
        List<Method> methods = rules.stream().map(SettingsInForce::method).flatMap(Optional::stream).toList();
        String runDefault = Long.toString(TimeLimits.runSeconds(methods, ownLimits(s)));
        String value = s.runTimeoutSeconds() == 0 ? runDefault : Long.toString(s.runTimeoutSeconds());
        return new TckReport.Setting(TckSettings.RUN_TIMEOUT_S, value, runDefault, false);
    }

    /** {@code s} without the time limits given: the limits the rules have of their own at these sizes. */
    private static TckSettings ownLimits(TckSettings s) {
        return new TckSettings(s.tries(), s.writeTries(), s.rows(), s.cancelBoundMillis(), s.raceRounds(), 0, 0);
    }

    /** The method that verifies {@code rule}: every rule's is a default method the whole kit holds. */
    private static Optional<Method> method(Rule rule) {
        for (Method m : GovernanceVerification.class.getMethods()) {
            Verifies v = m.getAnnotation(Verifies.class);
            if (v != null && v.value() == rule) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
