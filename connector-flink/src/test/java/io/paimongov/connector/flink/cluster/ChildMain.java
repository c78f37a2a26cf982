package io.paimongov.connector.flink.cluster;

import java.util.Arrays;

/**
 * The entry point of every {@link ProcessCluster} child: halts the child as soon as the test JVM
 * that started it is gone, then runs the Flink entry point named by the second argument with the
 * rest. So no JobManager or TaskManager outlives its test, also when the test JVM itself is killed
 * (a surefire timeout, SIGKILL) and no {@code finally} runs.
 *
 * <p>Arguments: the test JVM's pid, the main class, that class's arguments.
 */
public final class ChildMain {

    private ChildMain() {}

    public static void main(String[] args) throws Throwable {
        long parent = Long.parseLong(args[0]);
        ProcessHandle.of(parent).ifPresentOrElse(
                p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(137)),
                () -> Runtime.getRuntime().halt(137));
        Class.forName(args[1]).getMethod("main", String[].class).invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
}
