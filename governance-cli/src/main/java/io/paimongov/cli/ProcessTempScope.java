package io.paimongov.cli;

import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.EngineResources.SpillLocations;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The command-line process's own temporary directory: everything the process and the libraries
 * it loads put in {@code java.io.tmpdir} goes into one directory leased to the process, so that
 * nothing of a run is left in the machine's temp directory however the run ends.
 *
 * <p>Why: the libraries under Paimon extract their native code into {@code java.io.tmpdir}
 * (lz4-java's {@code liblz4-java-*.so} with a {@code .lck} file, snappy-java's {@code
 * snappy-*-libsnappyjava.so}, zstd-jni's {@code libzstd-jni-*.so}) and delete the copies only in
 * a JVM shutdown hook; a process killed with SIGKILL leaves them for good, since neither library
 * removes a copy whose lock file is still there. The temporary demo warehouse, the default spill
 * root and the kit's and benchmarks' work directories live there too.
 *
 * <p>How: {@link #enter}, the first thing {@link GovernanceCli#main} does, removes the scopes of
 * processes that are gone (the lease and liveness rule of spill scopes, {@link
 * SpillScope#sweepDead}, which also removes dead spill scopes directly under the temp directory),
 * creates {@code <java.io.tmpdir>/paimon-gov-<pid>-<uuid>} with its lease, and points {@code
 * java.io.tmpdir} at it. {@link java.io.File#createTempFile}, which the libraries use, reads the
 * property on its first use, after this; {@link Files#createTempDirectory(String,
 * java.nio.file.attribute.FileAttribute[])} read it when the JVM started, so the CLI makes its own
 * temporary directories with {@link #tempDirectory}. {@link #close} deletes the scope when the command returned. On SIGTERM or SIGINT, a
 * shutdown hook deletes it once the command's thread has returned ({@link ShutdownCleanup} makes
 * the run end within its bound), or after {@value #SIGNAL_WAIT_MILLIS} ms at the latest. After
 * SIGKILL the scope stays until the next command of any user of the same temp directory starts,
 * or until a governed write with the default spill root opens.
 *
 * <p>{@link #outside()} is the temp directory the process was started with: what a run keeps on
 * purpose ({@code demo --keep}) goes there.
 *
 * <p>Used by {@link GovernanceCli#main} only: in-process runs (tests, embedding tools) keep the
 * JVM's temp directory. Thread-safe; {@link #close} is idempotent and never throws (a scope that
 * cannot be deleted is reported on stderr and is swept by a later process).
 */
final class ProcessTempScope implements AutoCloseable {

    /** Longest the shutdown hook waits for the command to return: {@link ShutdownCleanup}'s bound and its report's. */
    static final long SIGNAL_WAIT_MILLIS = ShutdownCleanup.WAIT_MILLIS + 3_000;

    private static volatile Path outside;

    private final SpillScope scope;
    private final CountDownLatch returned = new CountDownLatch(1);
    private final PrintStream err;
    private final Thread hook;

    private ProcessTempScope(SpillScope scope, PrintStream err) {
        this.scope = scope;
        this.err = err;
        this.hook = new Thread(this::onShutdown, "paimon-governance-temp-scope");
    }

    /**
     * Sweeps dead scopes, creates this process's and makes it {@code java.io.tmpdir}. Returns null,
     * and changes nothing, when the temp directory cannot hold a scope (the reason goes to {@code
     * err}): the command then runs with the JVM's temp directory as before.
     */
    static ProcessTempScope enter(PrintStream err) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
        SpillLocations locations = SpillLocations.of(List.of(tmp), Long.MAX_VALUE);
        try {
            SpillScope.sweepDead(locations);
            SpillScope scope = SpillScope.create(locations, "paimon-governance command line");
            ProcessTempScope entered = new ProcessTempScope(scope, err);
            outside = tmp;
            System.setProperty("java.io.tmpdir", scope.dir().toString());
            Runtime.getRuntime().addShutdownHook(entered.hook);
            return entered;
        } catch (RuntimeException e) {
            err.println("warning: cannot create the process's temp directory under " + tmp + ": " + e.getMessage());
            return null;
        }
    }

    /** The temp directory the JVM was started with; the JVM's current one when no scope was entered. */
    static Path outside() {
        Path before = outside;
        return before != null ? before : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * A new temporary directory in the process's {@code java.io.tmpdir} as it is now. The CLI's
     * code uses this rather than {@link Files#createTempDirectory(String,
     * java.nio.file.attribute.FileAttribute[])}, which uses the value the JDK read at startup.
     */
    static Path tempDirectory(String prefix) throws IOException {
        return Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), prefix);
    }

    /** The scope directory, the process's {@code java.io.tmpdir}. */
    Path dir() {
        return scope.dir();
    }

    /** The command returned: deletes the scope. */
    @Override
    public void close() {
        returned.countDown();
        delete();
    }

    private void onShutdown() {
        try {
            returned.await(SIGNAL_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        delete();
    }

    private void delete() {
        try {
            scope.delete();
        } catch (RuntimeException e) {
            err.println("warning: " + e.getMessage() + "; a later run removes it");
        }
    }
}
