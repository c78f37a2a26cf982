package io.paimongov.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * What one command run undoes when the JVM is told to stop (SIGTERM, SIGINT): a JVM shutdown hook
 * that cancels the run's in-flight writes, waits at most {@value #WAIT_MILLIS} ms for the run to
 * end on its own (the write throws {@code WriteCancelledException}, closes, deletes its spill scope
 * and aborts its uncommitted files; the run removes its temporary warehouse and prints its report),
 * and otherwise removes the directories the run registered itself. The hook returns, and the JVM
 * exits with its own status for the signal, 128 + the signal's number: {@value
 * GovernanceCli#EXIT_SIGINT} after SIGINT, {@value GovernanceCli#EXIT_SIGTERM} after SIGTERM (a
 * shutdown hook keeps that status; the command's own exit code is not used).
 *
 * <p>The report: the run prints it through {@link #report}, which runs only while the hook has not
 * given up on the run, and which the hook waits for once it started; so stdout holds the whole
 * report or nothing of it, never a part (after the bound the hook takes the run over and no report
 * is printed, unless the run registered one with {@link #onAbandon}: the hook then prints that one).
 *
 * <p>A run whose writes the CLI cannot reach (the {@code bench} commands: the writes run inside
 * the benchmark harness, or in child JVMs) registers an interrupt of its thread as the cancel (an
 * interrupt cancels a governed write, and stops a wait for a child JVM) and may let the hook stop
 * its child processes ({@link #stopChildProcessesOnShutdown}): SIGTERM to each descendant process
 * at once, SIGKILL to any still alive once the wait is over, then the directories are removed.
 *
 * <p>Lifetime: {@link #install} -> registrations -> {@link #report} -> {@link #close}, on the
 * command's thread; the hook runs on the JVM's shutdown thread. {@link #close} unregisters the hook,
 * so an in-process run (tests, embedding tools) leaves nothing behind. <b>Thread-safety:</b> all
 * methods are thread-safe; none throws.
 */
final class ShutdownCleanup implements AutoCloseable {

    /** How long the hook waits for the run to end by itself after cancelling its writes. */
    static final long WAIT_MILLIS = 10_000;
    /** The cancel reason the writes are given. */
    static final String REASON = "the JVM is shutting down (SIGTERM or SIGINT)";
    /** How long the hook waits for a report that started printing within the bound. */
    private static final long REPORT_MILLIS = 2_000;
    /** How long the hook waits for each child process it killed to be gone. */
    private static final long CHILD_EXIT_MILLIS = 2_000;

    /** RUNNING -> REPORTING -> DONE by the run; RUNNING -> ABANDONED by the hook after the bound. */
    private enum State { RUNNING, REPORTING, DONE, ABANDONED }

    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    private final CountDownLatch ended = new CountDownLatch(1);
    private final List<Runnable> cancels = new CopyOnWriteArrayList<>();
    private final List<Path> created = new CopyOnWriteArrayList<>();
    private final List<Runnable> abandons = new CopyOnWriteArrayList<>();
    private final PrintStream err;
    private final long waitMillis;
    private final Thread hook;
    private volatile boolean requested;
    private volatile boolean children;

    private ShutdownCleanup(PrintStream err, long waitMillis) {
        this.err = err;
        this.waitMillis = waitMillis;
        this.hook = new Thread(this::shutdown, "paimon-governance-shutdown");
    }

    /** Registers the hook for one run; messages of the hook go to {@code System.err}. */
    static ShutdownCleanup install() {
        return install(System.err, WAIT_MILLIS);
    }

    static ShutdownCleanup install(PrintStream err, long waitMillis) {
        ShutdownCleanup cleanup = new ShutdownCleanup(err, waitMillis);
        try {
            Runtime.getRuntime().addShutdownHook(cleanup.hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            cleanup.requested = true;
        }
        return cleanup;
    }

    /**
     * Runs {@code cancel} when the JVM is told to stop; at once if it already was. {@code cancel}
     * must be quick and must not throw (a write's {@code ResourceContext.cancel} is both).
     */
    void cancelOnShutdown(Runnable cancel) {
        cancels.add(cancel);
        if (requested) {
            cancel.run();
        }
    }

    /** A directory this run created, removed by the hook if the run did not end within the bound. */
    void removeOnShutdown(Path dir) {
        created.add(dir);
    }

    /**
     * Runs {@code print} from the hook when the run did not end within the bound and the hook takes
     * it over: a report of what is known then, printed instead of the run's, which {@link #report}
     * no longer prints. {@code print} must be quick and must not throw.
     */
    void onAbandon(Runnable print) {
        abandons.add(print);
    }

    /** On shutdown, also stop this JVM's child processes (and theirs) before removing the directories. */
    void stopChildProcessesOnShutdown() {
        children = true;
    }

    /** Whether the JVM was told to stop while this run was registered. */
    boolean requested() {
        return requested;
    }

    /**
     * Runs {@code print} unless the hook has given up on the run (it waits for a report that
     * started). Returns whether it ran.
     */
    boolean report(Runnable print) {
        if (!state.compareAndSet(State.RUNNING, State.REPORTING)) {
            return false;
        }
        try {
            print.run();
        } finally {
            state.set(State.DONE);
            ended.countDown();
        }
        return true;
    }

    /** The run ended: the hook, if it runs now, has nothing to wait for. Unregisters it. */
    @Override
    public void close() {
        state.compareAndSet(State.RUNNING, State.DONE);
        ended.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or ran: it is the one that ends the JVM now.
        }
    }

    private void shutdown() {
        requested = true;
        for (Runnable cancel : cancels) {
            try {
                cancel.run();
            } catch (RuntimeException e) {
                err.println("warning: cancelling the write on shutdown failed: " + e);
            }
        }
        if (children) {
            ProcessHandle.current().descendants().forEach(ProcessHandle::destroy);
        }
        if (await(waitMillis)) {
            return;
        }
        if (state.compareAndSet(State.RUNNING, State.ABANDONED)) {
            err.println("error: the run did not end within " + waitMillis + " ms of the signal; removing what it created");
            for (Runnable print : abandons) {
                try {
                    print.run();
                } catch (RuntimeException e) {
                    err.println("warning: printing the report on shutdown failed: " + e);
                }
            }
            if (children) {
                ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
                // Bounded: an orphaned grandchild stays a zombie where no init reaps it.
                ProcessHandle.current().descendants().forEach(
                        p -> p.onExit().completeOnTimeout(p, CHILD_EXIT_MILLIS, TimeUnit.MILLISECONDS).join());
            }
            for (Path dir : created) {
                String failure = deleteTree(dir);
                if (failure != null) {
                    err.println("error: cannot remove " + dir + ": " + failure);
                }
            }
        } else {
            await(REPORT_MILLIS);
        }
    }

    private boolean await(long millis) {
        try {
            return ended.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Deletes {@code dir} and everything under it, as far as it can; a missing directory is fine.
     * Returns null when nothing remains, else why.
     */
    static String deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return null;
        }
        String failure = null;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    failure = failure == null ? e.toString() : failure;
                }
            }
        } catch (IOException | UncheckedIOException e) {
            failure = e.toString();
        }
        return Files.exists(dir) && failure == null ? "it is still there" : failure;
    }
}
