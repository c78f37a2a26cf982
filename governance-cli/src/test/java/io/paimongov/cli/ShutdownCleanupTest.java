package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ShutdownCleanup} in a JVM of its own that a SIGTERM stops while its run cannot end (as a
 * {@code bench} run, whose writes the CLI cannot cancel): the hook stops the run's child processes,
 * even one that would outlive it by far, prints the report the run registered for that case
 * once, removes the directories the run registered, and the JVM exits with 143.
 */
class ShutdownCleanupTest {

    private static final String READY = "ready ";
    private static final String REPORT = "the report of what the run knew when the hook took it over";

    @TempDir Path tmp;

    /**
     * The child: registers {@code args[0]} (a directory with a file in it), starts {@code sleep 600}
     * as its own child, says so, and never ends by itself.
     */
    public static void main(String[] args) throws Exception {
        ShutdownCleanup cleanup = ShutdownCleanup.install(System.err, 0);
        cleanup.stopChildProcessesOnShutdown();
        Path dir = Files.createDirectories(Path.of(args[0]));
        Files.writeString(dir.resolve("table-file"), "data");
        cleanup.removeOnShutdown(dir);
        cleanup.onAbandon(() -> {
            System.out.println(REPORT);
            System.out.flush();
        });
        Process sleeper = new ProcessBuilder("sleep", "600").start();
        System.out.println(READY + sleeper.pid());
        System.out.flush();
        Thread.sleep(TimeUnit.MINUTES.toMillis(10));
    }

    @Test
    void sigtermStopsTheRunsChildProcessesRemovesItsDirectoriesAndExits143() throws Exception {
        Path dir = tmp.resolve("work");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), ShutdownCleanupTest.class.getName(), dir.toString()));
        Process child = new ProcessBuilder(command).redirectError(tmp.resolve("stderr").toFile()).start();
        long sleeper = -1;
        try {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line = out.readLine();
                assertThat(line).as(Files.readString(tmp.resolve("stderr"))).startsWith(READY);
                sleeper = Long.parseLong(line.substring(READY.length()).trim());
                assertThat(running(sleeper)).isTrue();
                assertThat(dir.resolve("table-file")).exists();

                // SIGTERM through the handle: Process.destroy() would also close our end of its stdout.
                child.toHandle().destroy();

                assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(out.lines().toList()).as("stdout after the signal: the hook's report, once").containsExactly(REPORT);
            }
            assertThat(child.exitValue()).isEqualTo(GovernanceCli.EXIT_SIGTERM);
            assertThat(running(sleeper)).as("the run's child process 'sleep 600' after the run ended").isFalse();
            assertThat(dir).doesNotExist();
        } finally {
            child.destroyForcibly();
            if (sleeper > 0) {
                ProcessHandle.of(sleeper).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /**
     * Whether {@code pid} runs: it exists and is not a zombie (a killed orphan stays a zombie until
     * an init that reaps it does, which a container's first process may never do).
     */
    private static boolean running(long pid) throws Exception {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            String text;
            try {
                text = Files.readString(stat);
            } catch (java.io.IOException gone) {
                return false;
            }
            char state = text.charAt(text.lastIndexOf(')') + 2);
            if (state == 'Z' || state == 'X') {
                return false;
            }
            if (System.nanoTime() > deadline) {
                return true;
            }
            Thread.sleep(50);
        }
    }
}
