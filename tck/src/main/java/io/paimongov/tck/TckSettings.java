package io.paimongov.tck;

/**
 * How hard the kit tries and how long it may take, from system properties, with small defaults for
 * CI and a documented deep setting ({@code docs/tck.md}). Read from the system properties by every
 * rule as it starts, and by {@link TckRunner} as a run starts, so a runner may set them before a
 * run; the record itself is immutable.
 *
 * <ul>
 *   <li>{@code governance.tck.tries}: tries of the cheap properties (allocator sequences); default
 *       50, deep 2000.
 *   <li>{@code governance.tck.write-tries}: tries of the properties that write real tables; default
 *       3, deep 50.
 *   <li>{@code governance.tck.rows}: the largest workload in rows; default 20000, deep 500000.
 *   <li>{@code governance.tck.cancel-bound-ms}: the most a cancel may take to be seen, at the 99th
 *       percentile of CANCEL-1's cancels (docs/spi.md CANCEL.4); default 1000.
 *   <li>{@code governance.tck.race-rounds}: steps of MEM-2's race at the limit; default 20000, deep
 *       1000000.
 *   <li>{@code governance.tck.rule-timeout-s}: the most any one rule may run before it is reported
 *       timed out with the stacks of the threads alive; by default each rule has a limit of its own
 *       ({@link TimeLimits}), this sets every rule's.
 *   <li>{@code governance.tck.run-timeout-s}: the most the whole run may take; by default sized to
 *       the sizes above ({@link TimeLimits}).
 * </ul>
 *
 * @param ruleTimeoutSeconds {@code governance.tck.rule-timeout-s}, or 0 when not given (each rule's own limit)
 * @param runTimeoutSeconds {@code governance.tck.run-timeout-s}, or 0 when not given (the default run limit)
 */
public record TckSettings(
        int tries, int writeTries, int rows, long cancelBoundMillis, int raceRounds, long ruleTimeoutSeconds, long runTimeoutSeconds) {

    public static final String TRIES = "governance.tck.tries";
    public static final String WRITE_TRIES = "governance.tck.write-tries";
    public static final String ROWS = "governance.tck.rows";
    public static final String CANCEL_BOUND_MS = "governance.tck.cancel-bound-ms";
    public static final String RACE_ROUNDS = "governance.tck.race-rounds";
    public static final String RULE_TIMEOUT_S = "governance.tck.rule-timeout-s";
    public static final String RUN_TIMEOUT_S = "governance.tck.run-timeout-s";

    /** The defaults: what docs/tck.md's figures and the kit's self-tests are measured at. */
    static final int DEFAULT_TRIES = 50;
    static final int DEFAULT_WRITE_TRIES = 3;
    static final int DEFAULT_ROWS = 20_000;
    static final int DEFAULT_CANCEL_BOUND_MS = 1_000;
    static final int DEFAULT_RACE_ROUNDS = 20_000;
    static final int DEFAULT_OVERLAP_ROUNDS = 100;
    static final int DEFAULT_OVERLAPS = 20_000;

    public TckSettings {
        positive(TRIES, tries);
        positive(WRITE_TRIES, writeTries);
        positive(ROWS, rows);
        positive(CANCEL_BOUND_MS, cancelBoundMillis);
        positive(RACE_ROUNDS, raceRounds);
        notNegative(RULE_TIMEOUT_S, ruleTimeoutSeconds);
        notNegative(RUN_TIMEOUT_S, runTimeoutSeconds);
    }

    /**
     * The settings of the version before the run's time limit: {@code ruleTimeoutSeconds} for every
     * rule, the run's limit the default.
     *
     * @deprecated use the canonical constructor, which takes the run's limit too (0 for the default)
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public TckSettings(int tries, int writeTries, int rows, long cancelBoundMillis, int raceRounds, long ruleTimeoutSeconds) {
        this(tries, writeTries, rows, cancelBoundMillis, raceRounds, ruleTimeoutSeconds, 0);
    }

    /** The settings given as system properties, defaults where absent. */
    public static TckSettings fromSystemProperties() {
        return new TckSettings(
                intProperty(TRIES, DEFAULT_TRIES),
                intProperty(WRITE_TRIES, DEFAULT_WRITE_TRIES),
                intProperty(ROWS, DEFAULT_ROWS),
                intProperty(CANCEL_BOUND_MS, DEFAULT_CANCEL_BOUND_MS),
                intProperty(RACE_ROUNDS, DEFAULT_RACE_ROUNDS),
                givenSeconds(RULE_TIMEOUT_S),
                givenSeconds(RUN_TIMEOUT_S));
    }

    /** A time limit in seconds when given (at least 1), 0 when not. */
    private static long givenSeconds(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            return 0;
        }
        long seconds = intProperty(key, 0);
        positive(key, seconds);
        return seconds;
    }

    /**
     * {@code governance.tck.overlap-rounds}: the rounds MEM-16 runs at least, each a fresh write;
     * default 100, deep 5000. MEM-16 runs more rounds, up to ten times as many, while it has seen
     * fewer than {@link #overlaps()} overlapping calls.
     */
    public static final String OVERLAP_ROUNDS = "governance.tck.overlap-rounds";

    /**
     * {@code governance.tck.overlaps}: the overlapping calls MEM-16 must see (a worker entering an
     * allocator call while another is inside one); default 20000, deep 1000000.
     */
    public static final String OVERLAPS = "governance.tck.overlaps";

    /** {@link #OVERLAP_ROUNDS} from the system properties, or its default. */
    public static int overlapRounds() {
        int rounds = intProperty(OVERLAP_ROUNDS, DEFAULT_OVERLAP_ROUNDS);
        positive(OVERLAP_ROUNDS, rounds);
        return rounds;
    }

    /** {@link #OVERLAPS} from the system properties, or its default. */
    public static int overlaps() {
        int overlaps = intProperty(OVERLAPS, DEFAULT_OVERLAPS);
        positive(OVERLAPS, overlaps);
        return overlaps;
    }

    private static int intProperty(String key, int defaultValue) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + key + "' = '" + value + "' is not a whole number");
        }
    }

    private static void positive(String key, long value) {
        if (value < 1) {
            throw new IllegalArgumentException("'" + key + "' = " + value + " must be at least 1");
        }
    }

    private static void notNegative(String key, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("'" + key + "' = " + value + " must be at least 1 (or not given)");
        }
    }
}
