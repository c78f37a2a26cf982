package io.paimongov.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A close that could not give everything back (docs/spi.md, clause ERR.4): every step of the
 * cleanup ran, and the ones that failed are listed in {@link #failedSteps()}, in the order they
 * ran, each with what it left behind. Each step's own error is attached as suppressed; the first
 * is also the cause.
 *
 * <p>It extends {@link IllegalStateException} because the leak check of an allocator's close
 * (RES.4) throws that type and callers already catch it: a cleanup failure is a wider case of the
 * same thing, something the close could not return.
 *
 * <p>Immutable; the message reads {@code cleanup of <what> failed in <n> step(s): <step>; <step>}.
 */
public final class CleanupException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String subject;
    private final List<String> failedSteps;

    private CleanupException(String subject, List<String> failedSteps, List<? extends Throwable> errors) {
        super(message(subject, failedSteps), errors.isEmpty() ? null : errors.get(0));
        this.subject = subject;
        this.failedSteps = List.copyOf(failedSteps);
        for (Throwable error : errors) {
            addSuppressed(error);
        }
    }

    private static String message(String subject, List<String> steps) {
        return "cleanup of " + subject + " failed in " + steps.size() + (steps.size() == 1 ? " step: " : " steps: ")
                + String.join("; ", steps);
    }

    /** What was being cleaned up, e.g. {@code write 'orders-load'}. */
    public String subject() {
        return subject;
    }

    /** The steps that failed, each {@code <step>: <what happened and what is left>}, in order. */
    public List<String> failedSteps() {
        return failedSteps;
    }

    /**
     * Runs cleanup steps one after another, each even when an earlier one failed, and collects what
     * failed. Not thread-safe: one cleanup thread uses it.
     */
    public static final class Steps {
        private final String subject;
        private final List<String> failed = new ArrayList<>();
        private final List<Throwable> errors = new ArrayList<>();

        /** @param subject what is being cleaned up, for the message ({@code write 'x'}) */
        public Steps(String subject) {
            this.subject = Objects.requireNonNull(subject, "subject");
        }

        /** A step that can throw. */
        @FunctionalInterface
        public interface Step {
            void run() throws Exception;
        }

        /**
         * Runs {@code step}; what it throws (an {@link Error} included) is recorded under {@code name}
         * and not rethrown.
         *
         * @return whether the step finished without throwing
         */
        public boolean run(String name, Step step) {
            try {
                step.run();
                return true;
            } catch (Exception | Error e) {
                fail(name, describe(e), e);
                return false;
            }
        }

        /** Records a step that failed without an exception of its own ({@code error} may be null). */
        public void fail(String name, String what, Throwable error) {
            failed.add(name + ": " + what);
            if (error != null) {
                errors.add(error);
            }
        }

        /** How many steps failed so far. */
        public int failures() {
            return failed.size();
        }

        /** The failure of every step that failed, or null when none did. */
        public CleanupException toException() {
            return failed.isEmpty() ? null : new CleanupException(subject, failed, errors);
        }

        /** Throws {@link #toException()} when a step failed. */
        public void throwIfFailed() {
            CleanupException e = toException();
            if (e != null) {
                throw e;
            }
        }

        private static String describe(Throwable e) {
            if (e instanceof CleanupException c) {
                return String.join("; ", c.failedSteps());
            }
            String message = e.getMessage();
            return message == null ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + message;
        }
    }
}
