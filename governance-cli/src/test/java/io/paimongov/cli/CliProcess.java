package io.paimongov.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command line as an operator starts it: {@link GovernanceCli#main} in a JVM of its own, with
 * this JVM's java and class path, its own {@code java.io.tmpdir} (so that what it leaves there can
 * be told from everything else) and its stdout and stderr in files. Waits are bounded; a child that
 * outlives a test is killed by {@link #close}.
 */
final class CliProcess implements AutoCloseable {

    private final Process process;
    private final Path out;
    private final Path err;

    private CliProcess(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /** Starts {@code args} with {@code tmpDir} as the child's {@code java.io.tmpdir}; logs go to {@code logDir}. */
    static CliProcess start(Path tmpDir, Path logDir, List<String> jvmOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        if (sigintIgnoredHere()) {
            // A build started in the background by a non-interactive shell ignores SIGINT, and so would
            // the CLI it starts (an ignored signal stays ignored across exec); an operator's Ctrl-C
            // reaches a process that does not. GNU env gives the child SIGINT's default back.
            command.addAll(List.of("env", "--default-signal=INT"));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Djava.io.tmpdir=" + tmpDir);
        // No hsperfdata file and no crash log in a directory the test inspects.
        command.add("-XX:-UsePerfData");
        command.add("-XX:ErrorFile=" + logDir.resolve("hs_err_pid%p.log"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(GovernanceCli.class.getName());
        command.addAll(List.of(args));
        Path out = logDir.resolve("stdout");
        Path err = logDir.resolve("stderr");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .start();
        return new CliProcess(process, out, err);
    }

    /** Whether this process ignores SIGINT (bit 2 of the {@code SigIgn} mask in /proc/self/status). */
    private static boolean sigintIgnoredHere() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & 0x2L) != 0;
            }
        }
        return false;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The child's own child processes, and theirs. */
    List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    /** SIGTERM: {@link Process#destroy()} on Linux. */
    void sigterm() {
        process.destroy();
    }

    /** SIGKILL: {@link Process#destroyForcibly()}; returns once the child is gone. */
    void sigkill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGINT, as Ctrl-C sends it, through {@code kill -INT}. */
    void sigint() throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -INT " + process.pid() + " failed");
        }
    }

    /** The exit code, waiting at most {@code seconds}; fails when the child is still running. */
    int exitCode(long seconds) throws InterruptedException, IOException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the CLI did not end within " + seconds + " s; stderr:\n" + err());
        }
        return process.exitValue();
    }

    String out() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    String err() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
