package io.paimongov.tck;

import java.lang.reflect.Method;
import java.util.Collection;
import net.jqwik.api.Property;

/**
 * How long a rule, and a whole run, may take before the runner reports it timed out. A rule's own
 * limit is sized to what it does: {@value #ALLOCATOR_SECONDS} s for a rule that only calls the
 * allocator, {@value #RACE_SECONDS} s for the races of MEM-2 and MEM-16 and {@value #TABLE_SECONDS} s for a rule
 * that writes real tables, each at the default sizes, times how much more work the sizes given ask of that rule than the defaults do ({@link
 * #scale}). The defaults are more than ten times what the rules take here on 2 cores
 * (docs/tck.md gives the measured times), so that a loaded machine never times out a correct
 * provider, while a call that blocks is reported within about a minute (the first rule to allocate
 * is an allocator rule). {@code governance.tck.rule-timeout-s} replaces every rule's limit.
 *
 * <p>The run's limit, unless {@code governance.tck.run-timeout-s} gives one, is {@value
 * #RUN_SECONDS} s times the largest scale of the rules run: a provider that hangs in every rule
 * still gets a report within it. Stateless.
 */
final class TimeLimits {

    /** A rule that calls the allocator only, at the default sizes. */
    static final long ALLOCATOR_SECONDS = 60;
    /** A rule that writes real tables, at the default sizes. */
    static final long TABLE_SECONDS = 180;
    /**
     * MEM-2's race, at the default rounds: its threads start together at every step, so a machine
     * busy with other work slows it most (21 s measured here beside a build, 2.6 s alone).
     */
    static final long RACE_SECONDS = 240;
    /** The whole run, at the default sizes. */
    static final long RUN_SECONDS = 1800;

    private static final double TRIES = TckSettings.DEFAULT_TRIES;
    private static final double WRITE_TRIES = TckSettings.DEFAULT_WRITE_TRIES;
    private static final double ROWS = TckSettings.DEFAULT_ROWS;
    private static final double RACE_ROUNDS = TckSettings.DEFAULT_RACE_ROUNDS;
    private static final double OVERLAP_ROUNDS = TckSettings.DEFAULT_OVERLAP_ROUNDS;
    private static final double OVERLAPS = TckSettings.DEFAULT_OVERLAPS;
    /** CANCEL-1's cancels at the default tries: {@code max(100, tries)}. */
    private static final double CANCELS = 100;

    private TimeLimits() {}

    /** The most {@code rule}, verified by {@code method}, may run under {@code settings}, in seconds. */
    static long ruleSeconds(Rule rule, Method method, TckSettings settings) {
        if (settings.ruleTimeoutSeconds() > 0) {
            return settings.ruleTimeoutSeconds();
        }
        long base = rule == Rule.MEM_2 || rule == Rule.MEM_16 ? RACE_SECONDS : writesTables(rule, method) ? TABLE_SECONDS : ALLOCATOR_SECONDS;
        return (long) Math.ceil(base * scale(rule, method, settings));
    }

    /** The most a run of the rules verified by {@code methods} may take under {@code settings}, in seconds. */
    static long runSeconds(Collection<Method> methods, TckSettings settings) {
        if (settings.runTimeoutSeconds() > 0) {
            return settings.runTimeoutSeconds();
        }
        double largest = 1;
        for (Method m : methods) {
            largest = Math.max(largest, scale(m.getAnnotation(Verifies.class).value(), m, settings));
        }
        return (long) Math.ceil(RUN_SECONDS * largest);
    }

    /**
     * How much more work than at the default sizes {@code rule} does, at least 1: tries for a
     * property that does not write tables, write tries times rows for one that does, race rounds
     * for MEM-2, overlap rounds or overlaps for MEM-16, cancels for CANCEL-1, rows for an example that writes tables.
     */
    static double scale(Rule rule, Method method, TckSettings s) {
        boolean property = method.isAnnotationPresent(Property.class);
        double rows = Math.max(1, s.rows() / ROWS);
        double scale;
        if (rule == Rule.MEM_2) {
            scale = s.raceRounds() / RACE_ROUNDS;
        } else if (rule == Rule.MEM_16) {
            scale = Math.max(TckSettings.overlapRounds() / OVERLAP_ROUNDS, TckSettings.overlaps() / OVERLAPS);
        } else if (rule == Rule.CANCEL_1) {
            scale = Math.max(CANCELS, s.tries()) / CANCELS;
        } else if (property && method.isAnnotationPresent(Heavy.class)) {
            scale = s.writeTries() / WRITE_TRIES * rows;
        } else if (property) {
            scale = s.tries() / TRIES;
        } else {
            scale = writesTables(rule, method) ? rows : 1;
        }
        return Math.max(1, scale);
    }

    /** Whether the rule writes real tables: every rule of a writing subject, and a {@link Heavy} one of any. */
    static boolean writesTables(Rule rule, Method method) {
        String subject = rule.subject();
        return method.isAnnotationPresent(Heavy.class) || !(subject.equals("memory") || subject.equals("discovery"));
    }
}
