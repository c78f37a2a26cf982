package io.paimongov.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a measurement in a JVM of its own with a fixed heap, the way the tight-heap measures need
 * it: this JVM's {@code java} binary ({@code java.home}) and class path ({@code java.class.path}),
 * {@code -Xmx} and {@code -Xms} the same, the serial collector with every full collection compacting
 * ({@link #MEASURING_COLLECTOR}: a small heap fails fast instead of thrashing, and a full
 * collection's "after collection" usage is then exactly the live set) and {@code
 * -XX:+ExitOnOutOfMemoryError}, so an {@code OutOfMemoryError} in any thread (Paimon writes from
 * other threads too) ends the child with the JVM's own message. Its stdout and stderr go to one log
 * file, read back when it ends; a child still running at the time limit is killed. A measure that
 * needs its own JVM for another reason (an engine of its own, its own flags) gives its JVM options
 * itself ({@link #run(Path, List, long, Class, List)}).
 *
 * <p>Stateless; thread-safe. <b>May throw:</b> {@link java.io.IOException} when the child cannot
 * start or its log cannot be read; {@link InterruptedException} (the child is killed first).
 */
public final class ChildJvm {

    /**
     * The collector of every JVM whose live heap a measure reads ({@link LiveHeap}, {@link
     * LiveHeapSampler}): the serial collector, with no dead space left in place by a full
     * collection. HotSpot's default {@code MarkSweepDeadRatio} of 5 lets three full collections
     * in four leave dead objects near the bottom of the old generation unmoved, up to 5% of its
     * capacity, and counts them as used: 68 MB in a 2 GiB heap, which {@code bench lag} read as a
     * live heap of twice its 64 MiB budget while a census of the live objects at the same
     * collections (JFR's {@code ObjectCountAfterGC}) found the budget's worth. Both sides of a
     * comparison run with it.
     */
    public static final List<String> MEASURING_COLLECTOR = List.of("-XX:+UseSerialGC", "-XX:MarkSweepDeadRatio=0");

    /** What {@code -XX:+ExitOnOutOfMemoryError} and the JVM print when the heap ran out. */
    public static final String OOM = "OutOfMemoryError";

    /**
     * How a child ended.
     *
     * @param exitCode its exit code; -1 when it was killed at the time limit
     * @param timedOut whether it was still running at the time limit
     * @param millis wall time, JVM start included
     * @param output stdout and stderr, interleaved as written
     */
    public record Ended(int exitCode, boolean timedOut, long millis, String output) {

        /** Whether the JVM reported an {@code OutOfMemoryError}. */
        public boolean outOfMemory() {
            return output.contains(OOM);
        }

        /** The last {@code lines} non-blank lines of the output. */
        public String tail(int lines) {
            return ChildJvm.tail(output, lines);
        }
    }

    private ChildJvm() {}

    /** The last {@code lines} non-blank lines of {@code output}, joined by line separators. */
    public static String tail(String output, int lines) {
        List<String> all = output.lines().filter(l -> !l.isBlank()).toList();
        return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /**
     * Runs {@code mainClass} with {@code args} in a child with {@code -Xmx} = {@code -Xms} = {@code
     * heapBytes}; its log is {@code dir/child.log} ({@code dir} is created if missing and left to the
     * caller).
     */
    public static Ended run(Path dir, long heapBytes, long timeoutSeconds, Class<?> mainClass, List<String> args) throws Exception {
        return run(dir, measuringOptions(heapBytes), timeoutSeconds, mainClass, args);
    }

    /**
     * The JVM options of a child whose live heap is measured: {@code -Xmx} = {@code -Xms} = {@code
     * heapBytes}, {@link #MEASURING_COLLECTOR} and {@code -XX:+ExitOnOutOfMemoryError}; a new
     * mutable list, for callers that add options of their own.
     */
    public static List<String> measuringOptions(long heapBytes) {
        List<String> options = new ArrayList<>(List.of("-Xmx" + heapBytes, "-Xms" + heapBytes));
        options.addAll(MEASURING_COLLECTOR);
        options.add("-XX:+ExitOnOutOfMemoryError");
        return options;
    }

    /**
     * Runs {@code mainClass} with {@code args} in a child with the JVM options {@code jvmOptions}
     * (and logging at {@code error}), for measures that need a JVM of their own without the
     * tight-heap settings above; its log is {@code dir/child.log}.
     */
    public static Ended run(Path dir, List<String> jvmOptions, long timeoutSeconds, Class<?> mainClass, List<String> args)
            throws Exception {
        Files.createDirectories(dir);
        Path log = dir.resolve("child.log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=error");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean timedOut;
        try {
            timedOut = !process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (timedOut) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        String output = Files.readString(log, StandardCharsets.UTF_8);
        return new Ended(timedOut ? -1 : process.exitValue(), timedOut, millis, output);
    }
}
