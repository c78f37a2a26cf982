package io.paimongov.runtime.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints byte sizes: {@code 1048576}, {@code 512k}, {@code 64m}, {@code 1g}, {@code
 * 2t}, with an optional {@code b}, {@code kb}/{@code kib} style suffix, case-insensitive. Units
 * are binary (1k = 1024). Stateless; thread-safe.
 */
public final class Sizes {

    private static final Pattern SIZE =
            Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?");

    private Sizes() {}

    /**
     * Parses {@code text} as a byte size.
     *
     * @throws IllegalArgumentException naming {@code key} and {@code text} when it is not a size
     */
    public static long parse(String key, String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + key + "' = '" + text + "' is not a size; use bytes or a unit such as 512k, 64m, 1g");
        }
        long shift =
                switch (m.group(2) == null ? "b" : m.group(2).substring(0, 1)) {
                    case "k" -> 10;
                    case "m" -> 20;
                    case "g" -> 30;
                    case "t" -> 40;
                    default -> 0;
                };
        try {
            long value = Long.parseLong(m.group(1));
            if (value > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return value << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' is too large", e);
        }
    }

    /** Prints {@code bytes} in the largest unit that divides it exactly ({@code 64m}, {@code 1536k}). */
    public static String format(long bytes) {
        String[] units = {"t", "g", "m", "k"};
        int[] shifts = {40, 30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes >= unit && bytes % unit == 0) {
                return (bytes >> shifts[i]) + units[i];
            }
        }
        return Long.toString(bytes);
    }
}
