package io.paimongov.reliability;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How long the governance fuzzer runs, from system properties: {@code governance.fuzz.seed} runs
 * that seed (or those, comma-separated); else {@code governance.fuzz.minutes} keeps drawing seeds until the time is up, or
 * {@code governance.fuzz.iterations} seeds are run (the CI default, {@value #CI_ITERATIONS}).
 * {@code governance.fuzz.rows} bounds each write's rows (default {@value #DEFAULT_ROWS}); a seed
 * draws the same case only with the same bound. Seeds of a run come from a start seed taken from
 * the clock, printed in the report.
 *
 * <p>Immutable; thread-safe.
 *
 * @param seeds the seeds to run, or empty
 * @param iterations seeds to run when neither a seed nor minutes are given
 * @param minutes how long to keep drawing seeds, or 0
 * @param maxRows the most rows a write draws
 * @param startSeed where the run's seeds come from
 */
record FuzzSettings(List<Long> seeds, int iterations, double minutes, int maxRows, long startSeed) {

    static final String SEED = "governance.fuzz.seed";
    static final String ITERATIONS = "governance.fuzz.iterations";
    static final String MINUTES = "governance.fuzz.minutes";
    static final String ROWS = "governance.fuzz.rows";
    static final int CI_ITERATIONS = 10;
    static final int DEFAULT_ROWS = 6000;
    /** How long one iteration may take before it counts as a hang. */
    static final long DEADLINE_MILLIS = 180_000;

    FuzzSettings {
        if (iterations < 1 || minutes < 0 || maxRows < 200) {
            throw new IllegalArgumentException(ITERATIONS + " must be at least 1, " + MINUTES + " not negative, " + ROWS
                    + " at least 200: " + iterations + ", " + minutes + ", " + maxRows);
        }
    }

    static FuzzSettings fromSystemProperties() {
        String seed = System.getProperty(SEED, "").strip();
        String minutes = System.getProperty(MINUTES, "").strip();
        return new FuzzSettings(
                seed.isEmpty() ? List.of() : Arrays.stream(seed.split(",")).map(String::strip).map(Long::parseLong).toList(),
                Integer.getInteger(ITERATIONS, CI_ITERATIONS),
                minutes.isEmpty() ? 0 : Double.parseDouble(minutes),
                Integer.getInteger(ROWS, DEFAULT_ROWS),
                System.nanoTime() ^ System.currentTimeMillis() * 1_000_003L);
    }

    /** Where the seeds of a run without {@link #seeds()} come from, drawn lazily; {@link #more} says when to stop. */
    SplittableRandom random() {
        return new SplittableRandom(startSeed);
    }

    /** Whether to run another iteration after {@code done} of them, {@code elapsedMillis} into the run. */
    boolean more(int done, long elapsedMillis) {
        if (!seeds.isEmpty()) {
            return done < seeds.size();
        }
        if (minutes > 0) {
            return elapsedMillis < minutes * 60_000;
        }
        return done < iterations;
    }

    /** The one-line command that runs {@code seed} alone. */
    String reproduce(long seed) {
        return "mvn -B -pl reliability test -Dtest=GovernanceFuzzerTest -D" + SEED + "=" + seed
                + (maxRows == DEFAULT_ROWS ? "" : " -D" + ROWS + "=" + maxRows);
    }

    String describe() {
        String what = !seeds.isEmpty() ? "seeds " + seeds
                : (minutes > 0 ? minutes + " minutes" : iterations + " iterations") + " from start seed " + startSeed;
        return what + ", rows up to " + maxRows + " a write";
    }
}
