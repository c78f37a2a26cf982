package io.paimongov.runtime.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the durations of {@code governance.orphans.older-than} and the CLI's {@code
 * --older-than}: a whole number and one unit, {@code ms}, {@code s}, {@code m}, {@code h} or {@code
 * d} ({@code 0s}, {@code 90s}, {@code 10m}, {@code 2h}, {@code 1d}), case-insensitive. A unit is
 * required (a bare {@code 10} would be ambiguous). Stateless; thread-safe.
 */
public final class Durations {

    /** The largest duration accepted: longer ones are surely a mistake (and would overflow). */
    public static final Duration MAX = Duration.ofDays(36_500);

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private Durations() {}

    /**
     * Parses {@code text} as a duration.
     *
     * @throws IllegalArgumentException naming {@code key} and {@code text} when it is not one, or is
     *     longer than {@link #MAX}
     */
    public static Duration parse(String key, String text) {
        return parse(key, text, "");
    }

    /** As {@link #parse(String, String)}, the error for a non-duration ending with {@code alternatives}. */
    static Duration parse(String key, String text, String alternatives) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + key + "' = '" + text
                    + "' is not a duration; use a number and a unit such as 0s, 90s, 10m, 2h, 1d" + alternatives);
        }
        long n = Long.parseLong(m.group(1));
        Duration unit = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(1);
            case "s" -> Duration.ofSeconds(1);
            case "m" -> Duration.ofMinutes(1);
            case "h" -> Duration.ofHours(1);
            default -> Duration.ofDays(1);
        };
        if (n > MAX.dividedBy(unit)) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' is longer than " + format(MAX));
        }
        return unit.multipliedBy(n);
    }

    /** Prints {@code d} in the largest unit that divides it exactly ({@code 1d}, {@code 90s}, {@code 0s}). */
    public static String format(Duration d) {
        long ms = d.toMillis();
        long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (ms % units[i] == 0) {
                return ms / units[i] + names[i];
            }
        }
        return ms + "ms";
    }
}
