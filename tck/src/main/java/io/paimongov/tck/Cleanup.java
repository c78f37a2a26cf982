package io.paimongov.tck;

import org.opentest4j.TestAbortedException;

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
     * Runs a rule's {@code checks} on what a body did whose cleanup failed with {@code cleanup} (null
     * when it did not): a failed check is the verdict, with {@code cleanup} added as suppressed; when
     * every check holds, {@code cleanup} is the rule's failure. So it is too when the checks discard
     * the try (an assumption that does not hold): a cleanup that failed is a fault whatever the try
     * would have shown, and a discarded try would hide it.
     *
     * @param cleanup a {@link RuntimeException} or an {@link Error} (the kit's failure of a rule), or null
     */
    static void judgeThen(Throwable cleanup, Runnable checks) {
        try {
            judgeThen(cleanup, () -> {
                checks.run();
                return null;
            });
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("checks that throw no checked exception threw " + e, e);
        }
    }

    /**
     * As {@link #judgeThen(Throwable, Runnable)}, for checks that read what they judge (a table, a
     * directory) and give back what the rule reports.
     *
     * @return what {@code checks} returned, when every check held and there was no cleanup failure
     */
    static <T> T judgeThen(Throwable cleanup, java.util.concurrent.Callable<T> checks) throws Exception {
        T result;
        try {
            result = checks.call();
        } catch (TestAbortedException discarded) {
            if (cleanup == null) {
                throw discarded;
            }
            throw unchecked(cleanup);
        } catch (Exception | Error e) {
            if (cleanup != null) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        if (cleanup != null) {
            throw unchecked(cleanup);
        }
        return result;
    }

    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("the cleanup failed", t);
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
