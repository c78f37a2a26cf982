package io.paimongov.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the {@code tck} command changes in the JVM for the length of one run, put back on {@link
 * #close}: the kit's system properties ({@code TckSettings} reads them while the rules run, so they
 * cannot be passed any other way) and {@link System#out}, which points at {@link System#err}
 * meanwhile so that nothing a rule, Paimon or a vendor's provider prints reaches the command's own
 * output ({@code --json} promises exactly one JSON object there). Restoring matters because the
 * command also runs in process, in tests and in tools that embed the CLI.
 *
 * <p>Not thread-safe: system properties and {@code System.out} belong to the whole JVM, so one run
 * at a time, as for {@code TckRunner}. {@link #close} does not throw and is meant to be called once.
 */
final class RunScope implements AutoCloseable {

    private final Map<String, String> previous = new LinkedHashMap<>();
    private final PrintStream previousOut;

    /** Sets each of {@code properties} and sends {@code System.out} to {@code System.err}. */
    RunScope(Map<String, String> properties) {
        properties.forEach((key, value) -> previous.put(key, System.setProperty(key, value)));
        previousOut = System.out;
        System.setOut(System.err);
    }

    @Override
    public void close() {
        System.setOut(previousOut);
        previous.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }
}
