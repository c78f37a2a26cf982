package io.paimongov.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Text of thread stacks and cause chains for the kit's failure messages. Stateless; thread-safe. */
final class ThreadStacks {

    /** Frames printed per thread; the top of a stuck stack is what tells where it is stuck. */
    static final int FRAMES = 40;

    /** The JVM's and the JDK's shared threads, which live as long as the JVM and belong to no write. */
    private static final Set<String> JVM_THREADS = Set.of(
            "Reference Handler", "Finalizer", "Signal Dispatcher", "Common-Cleaner", "Notification Thread", "Attach Listener",
            "process reaper", "surefire-forkedjvm-command-thread", "surefire-forkedjvm-ping-30s");

    /** Whether {@code t} is one of the JVM's or the JDK's shared threads (the common fork-join pool, JFR's). */
    static boolean jvmThread(Thread t) {
        String name = t.getName();
        return JVM_THREADS.contains(name) || name.startsWith("ForkJoinPool.commonPool-worker-") || name.startsWith("JFR ");
    }

    private ThreadStacks() {}

    /** The stacks of every live thread but the JVM's own, {@code first}'s at the top. */
    static String of(Thread first) {
        Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
        List<Thread> threads = new ArrayList<>();
        threads.add(first);
        all.keySet().stream()
                .filter(t -> t != first && t != Thread.currentThread() && !jvmThread(t))
                .sorted((a, b) -> a.getName().compareTo(b.getName()))
                .forEach(threads::add);
        StringBuilder out = new StringBuilder();
        for (Thread t : threads) {
            StackTraceElement[] stack = t == first ? first.getStackTrace() : all.get(t);
            if (stack == null) {
                continue;
            }
            out.append('"').append(t.getName()).append('"').append(t.isDaemon() ? " daemon" : "").append(' ').append(t.getState()).append('\n');
            for (int i = 0; i < Math.min(FRAMES, stack.length); i++) {
                out.append("    at ").append(stack[i]).append('\n');
            }
            if (stack.length > FRAMES) {
                out.append("    ... ").append(stack.length - FRAMES).append(" more\n");
            }
        }
        return out.toString();
    }

    /** {@code t} and its causes on one line: "type: message; caused by type: message ...". */
    static String causes(Throwable t) {
        StringBuilder out = new StringBuilder(String.valueOf(t));
        int depth = 0;
        for (Throwable c = t.getCause(); c != null && c != t && depth < 20; c = c.getCause(), depth++) {
            out.append("; caused by ").append(c);
        }
        return out.toString();
    }
}
