package io.paimongov.reliability;

import java.util.function.Predicate;

/** Short descriptions of errors for checks and the report. Stateless. */
final class Errors {

    private Errors() {}

    /** The exception's class and message, and the root cause's when it differs. */
    static String summary(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = t.getClass().getSimpleName() + ": " + t.getMessage();
        return root == t ? top : top + " (root: " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }

    /** Whether {@code type} is in {@code t}'s cause chain or among its suppressed exceptions. */
    static boolean has(Throwable t, Class<? extends Throwable> type) {
        return any(t, type::isInstance);
    }

    /** Whether some message in {@code t}'s cause chain or its suppressed exceptions contains {@code text}. */
    static boolean mentions(Throwable t, String text) {
        return any(t, c -> c.getMessage() != null && c.getMessage().contains(text));
    }

    /** Whether {@code test} holds for {@code t}, a cause of it, or (recursively) one they suppressed. */
    private static boolean any(Throwable t, Predicate<Throwable> test) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (test.test(c)) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (any(s, test)) {
                    return true;
                }
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }
}
