package io.paimongov.tck;

/**
 * Closes what a rule opened without letting a failing close hide the rule's verdict: when the rule
 * already failed, what the close throws (a provider's leak error at close) is added to that failure
 * as suppressed, and the runner lists it after the failure's message; when the rule had passed, the
 * close's failure is the rule's. What {@code try}-with-resources does, for the places where the
 * resource is known only after the body ran (an action chain's final state). Stateless.
 */
final class Cleanup {

    private Cleanup() {}

    /**
     * Runs a rule's {@code checks} on what a body did whose cleanup threw {@code cleanup} (null when
     * it did not): a failed check is the verdict, with {@code cleanup} added as suppressed; when every
     * check holds, {@code cleanup} is the rule's failure.
     */
    static void judgeThen(RuntimeException cleanup, Runnable checks) {
        try {
            checks.run();
        } catch (RuntimeException | Error e) {
            if (cleanup != null) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        if (cleanup != null) {
            throw cleanup;
        }
    }

    /**
     * Closes {@code resource}; {@code verdict} is what the rule threw, or null when it passed.
     *
     * @throws RuntimeException or {@link Error} what the close threw, when {@code verdict} is null
     */
    static void after(Throwable verdict, AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception | Error e) {
            if (verdict != null) {
                verdict.addSuppressed(e);
            } else if (e instanceof RuntimeException r) {
                throw r;
            } else if (e instanceof Error err) {
                throw err;
            } else {
                throw new IllegalStateException("closing " + resource + " failed", e);
            }
        }
    }
}
