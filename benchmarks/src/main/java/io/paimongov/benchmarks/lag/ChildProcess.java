package io.paimongov.benchmarks.lag;

import io.paimongov.benchmarks.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a {@link LagChild} and tells how it ended. The child is this JVM's {@code java} binary and
 * class path with a fixed heap of {@link #heapBytes} ({@code -Xmx} = {@code -Xms}), the serial
 * collector (whose full collection leaves exactly the live set, what {@link io.paimongov.benchmarks.LiveHeapSampler} reads) and
 * {@code -XX:+ExitOnOutOfMemoryError}; the same for every setting, governed or plain. Its stdout
 * carries the frames ({@link Frames}) and nothing else (the JVM's own output is sent to stderr), its
 * stdin the commands, its stderr goes to a log file.
 *
 * <p>Stateless; thread-safe.
 */
final class ChildProcess {

    /**
     * The least heap a child gets: room for plain Paimon with its defaults (a 256 MB lookup cache and
     * write buffer), and for four compactions at once reading the prepared table's files, whose
     * Parquet row groups are Paimon's default 128 MB: an exploratory run measured 0.72 GB live in a
     * task-threads -1 child of 1 GiB.
     */
    static final long MIN_HEAP = 2L << 30;

    private ChildProcess() {}

    /** The child's heap under {@code budgetBytes}: four times the budget, at least {@link #MIN_HEAP}. */
    static long heapBytes(long budgetBytes) {
        return Math.max(MIN_HEAP, 4 * budgetBytes);
    }

    static Process start(List<String> args, long budgetBytes, Path log) throws IOException {
        long heap = heapBytes(budgetBytes);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(ChildJvm.measuringOptions(heap));
        command.addAll(List.of(
                // stdout carries the frames: what the JVM itself prints (its warnings, the out-of-memory exit) goes to stderr.
                "-XX:+DisplayVMOutputToStderr", "-Xlog:disable", "-Xlog:all=warning:stderr",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp", System.getProperty("java.class.path"), LagChild.class.getName()));
        command.addAll(args);
        return new ProcessBuilder(command).redirectError(log.toFile()).start();
    }

    /**
     * Why the child failed, one line; null when it ran to its last frame and exited with 0.
     *
     * @param ended whether it exited before its time limit
     * @param sawEnd whether its last frame came
     * @param commitFailure what failed the committing thread, if anything
     */
    static String failure(Process child, boolean ended, boolean sawEnd, Path log, Throwable commitFailure, long slackSeconds)
            throws IOException {
        if (!ended) {
            return "timed out: still running " + slackSeconds + " s after its schedule (killed)";
        }
        String output = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        String oom = output.lines().filter(l -> l.contains(ChildJvm.OOM)).findFirst().orElse(null);
        if (oom != null) {
            return ChildJvm.OOM + ": " + oom.trim();
        }
        String failed = output.lines().filter(l -> l.startsWith(LagChild.FAILED + " ")).findFirst().orElse(null);
        if (failed != null) {
            return failed.substring(LagChild.FAILED.length() + 1);
        }
        if (commitFailure != null) {
            return "the committer failed: " + commitFailure.getClass().getSimpleName() + ": " + commitFailure.getMessage();
        }
        if (child.exitValue() != 0 || !sawEnd) {
            return "exited with code " + child.exitValue() + (sawEnd ? "" : " before its last frame") + ": "
                    + ChildJvm.tail(output, 2).replaceAll("\\s+", " ");
        }
        return null;
    }
}
