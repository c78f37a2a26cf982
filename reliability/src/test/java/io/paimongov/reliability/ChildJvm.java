package io.paimongov.reliability;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a test class's {@code main} in a child JVM with the same {@code java}, JVM flags and class
 * path as the test (as {@link KilledWriter} does), its output into a log file; and waits for a file
 * the child writes to say it reached a point. Stateless.
 */
final class ChildJvm {

    private ChildJvm() {}

    static Process start(Class<?> main, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-javaagent") && !arg.startsWith("-agentlib") && !arg.startsWith("-Xrunjdwp")) {
                command.add(arg);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * Waits until {@code marker} exists; fails with the child's log when the child ends first or
     * {@code timeoutSeconds} pass (a bound for a hung child, not a measurement).
     */
    static void awaitMarker(Process child, Path marker, Path log, long timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!Files.exists(marker)) {
            if (!child.isAlive()) {
                throw new AssertionError("the child ended (exit " + child.exitValue() + ") before " + marker.getFileName()
                        + "; its log:\n" + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + marker.getFileName() + " within " + timeoutSeconds + " s; log:\n"
                        + Files.readString(log));
            }
            Thread.sleep(20);
        }
    }

    /** Kills {@code child} with SIGKILL and waits for it; true when it ended with 137 (128 + SIGKILL). */
    static boolean kill(Process child) throws InterruptedException {
        child.destroyForcibly();
        return child.waitFor(60, TimeUnit.SECONDS) && child.exitValue() == 137;
    }

    /** Signals a child that waits for {@code file}: created atomically. */
    static void touch(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, "go");
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
