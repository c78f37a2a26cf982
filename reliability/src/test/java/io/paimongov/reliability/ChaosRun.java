package io.paimongov.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One execution of the command line ({@code io.paimongov.cli.GovernanceCli}) as a child process,
 * the way an operator runs it, optionally stopped by a signal once it has entered a given phase.
 *
 * <p>How it works. The child is the same {@code java} with the test JVM's flags (the module
 * opens), a heap of its own, the test's class path (which holds governance-cli and its runtime
 * dependencies), its own {@code java.io.tmpdir} and the demo's phase trace on ({@code
 * governance.cli.trace-phases=true}). Stdout goes to a file (the JSON report); stderr is read
 * line by line on a thread of ours into a log file, and each {@code phase <name>} line is
 * remembered. When the awaited phase shows, the parent waits the drawn delay and, if the child is
 * still alive, sends the signal: {@link Process#destroyForcibly()} is SIGKILL on Linux, {@link
 * Process#destroy()} SIGTERM.
 *
 * <p>Not thread-safe; one call at a time per instance of the test.
 */
final class ChaosRun {

    /** How the parent stops the child. */
    enum Signal {
        /** SIGKILL: no shutdown hook, no finally block; 128 + 9. */
        KILL(137),
        /** SIGTERM: the JVM runs its shutdown hooks; 128 + 15. */
        TERM(143);

        final int exitCode;

        Signal(int exitCode) {
            this.exitCode = exitCode;
        }
    }

    /**
     * What the parent saw.
     *
     * @param exitCode the child's exit code, -1 if it had to be killed at the time-out
     * @param signalled whether the signal was sent while the child was alive
     * @param phaseReached whether the awaited phase was printed (true when none was awaited)
     * @param phases the phases the child printed, in order
     * @param stdout what the child printed on stdout
     * @param log the file with the child's stderr
     */
    record Result(int exitCode, boolean signalled, boolean phaseReached, List<String> phases, String stdout, Path log) {

        /** The last phase printed, "-" if none. */
        String lastPhase() {
            return phases.isEmpty() ? "-" : phases.get(phases.size() - 1);
        }
    }

    static final String MAIN = "io.paimongov.cli.GovernanceCli";
    private static final String PHASE = "phase ";
    private static final long TIMEOUT_SECONDS = 300;

    private ChaosRun() {}

    /** Runs the CLI with {@code args} to the end, no signal. */
    static Result run(List<String> args, Path tmpdir, Path log) throws Exception {
        return run(args, tmpdir, log, null, null, 0);
    }

    /**
     * Runs the CLI with {@code args}; once it prints {@code phase <awaitPhase>}, waits {@code
     * delayMillis} and sends {@code signal} if it is still alive. With a null phase, no signal.
     */
    static Result run(List<String> args, Path tmpdir, Path log, String awaitPhase, Signal signal, long delayMillis)
            throws Exception {
        Files.createDirectories(tmpdir);
        Path out = log.resolveSibling(log.getFileName() + ".out");
        Process child =
                new ProcessBuilder(command(args, tmpdir)).redirectOutput(out.toFile()).start();
        child.getOutputStream().close();
        List<String> phases = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch awaited = new CountDownLatch(1);
        Thread reader = new Thread(() -> readStderr(child, log, phases, awaitPhase, awaited), "chaos-stderr");
        reader.setDaemon(true);
        reader.start();
        boolean signalled = false;
        try {
            if (awaitPhase != null) {
                while (child.isAlive() && !awaited.await(20, TimeUnit.MILLISECONDS)) {
                    // wait for the phase or the end of the child
                }
                if (awaited.getCount() == 0) {
                    Thread.sleep(delayMillis);
                    if (child.isAlive()) {
                        signalled = true;
                        if (signal == Signal.KILL) {
                            child.destroyForcibly();
                        } else {
                            child.destroy();
                        }
                    }
                }
            }
            boolean ended = child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(10));
            int exit = ended ? child.exitValue() : -1;
            String stdout = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
            return new Result(exit, signalled, awaitPhase == null || awaited.getCount() == 0, List.copyOf(phases), stdout, log);
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            }
        }
    }

    private static void readStderr(Process child, Path log, List<String> phases, String awaitPhase, CountDownLatch awaited) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getErrorStream(), StandardCharsets.UTF_8));
                Writer logFile = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith(PHASE)) {
                    String phase = line.substring(PHASE.length()).trim();
                    phases.add(phase);
                    if (phase.equals(awaitPhase)) {
                        awaited.countDown();
                    }
                }
                logFile.write(line);
                logFile.write('\n');
                logFile.flush();
            }
        } catch (IOException e) {
            // The child died with the pipe open; what was read is what there is.
        }
    }

    /** java, the test JVM's flags without its heap and agents, the child's heap and tmpdir, the class path. */
    private static List<String> command(List<String> args, Path tmpdir) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-javaagent") && !arg.startsWith("-agentlib") && !arg.startsWith("-Xrunjdwp")
                    && !arg.startsWith("-Xmx") && !arg.startsWith("-Djava.io.tmpdir")) {
                command.add(arg);
            }
        }
        command.add("-Xmx512m");
        // The children are short: the C1 compiler alone starts faster and competes less for the cores.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Djava.io.tmpdir=" + tmpdir);
        command.add("-Dgovernance.cli.trace-phases=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MAIN);
        command.addAll(args);
        return command;
    }
}
