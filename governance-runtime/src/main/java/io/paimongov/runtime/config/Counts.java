package io.paimongov.runtime.config;

/**
 * Parses counts given as option values (channels, parallelism), for the engines' connectors as
 * for the runtime's own keys. Stateless; thread-safe.
 */
public final class Counts {

    private Counts() {}

    /**
     * Parses {@code text} as a whole number above zero.
     *
     * @throws IllegalArgumentException naming {@code key} and {@code text} when it is not one
     */
    public static int positive(String key, String text) {
        try {
            int n = Integer.parseInt(text.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the key
        }
        throw new IllegalArgumentException("'" + key + "' = '" + text + "' is not a positive integer");
    }
}
