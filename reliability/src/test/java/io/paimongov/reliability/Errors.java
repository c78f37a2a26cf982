package io.paimongov.reliability;

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
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (has(s, type)) {
                    return true;
                }
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    /** Whether some message in {@code t}'s cause chain or its suppressed exceptions contains {@code text}. */
    static boolean mentions(Throwable t, String text) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getMessage() != null && c.getMessage().contains(text)) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (mentions(s, text)) {
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
