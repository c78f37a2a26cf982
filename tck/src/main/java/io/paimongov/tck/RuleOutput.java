package io.paimongov.tck;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What one rule printed while it ran: {@link System#out} and {@link System#err} point at a bounded
 * buffer between {@link #capture()} and {@link #close()}, so that the logs of the faults a rule
 * causes on purpose (a cancelled write, an injected failure, an engine that refuses) go into the
 * rule's result and the JUnit XML instead of the console. Loggers that look the stream up when
 * they write (slf4j-simple's default, Paimon's and the engines' through it) follow; one that kept
 * the stream from before still writes to the console.
 *
 * <p>Not thread-safe to open: the streams belong to the whole JVM, so one capture at a time (the
 * runner runs one rule at a time). Writes into the buffer may come from any thread, also after
 * close (a rule left behind at its time limit), and are then kept out of the next rule's.
 */
final class RuleOutput implements AutoCloseable {

    /** The most kept per rule; what passes it is counted, not kept. */
    static final int LIMIT = 256 * 1024;

    private final PrintStream previousOut;
    private final PrintStream previousErr;
    private final Bounded buffer = new Bounded();

    private RuleOutput() {
        previousOut = System.out;
        previousErr = System.err;
        PrintStream into = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        System.setOut(into);
        System.setErr(into);
    }

    /** Starts capturing; close to put the console back. */
    static RuleOutput capture() {
        return new RuleOutput();
    }

    /** What was printed so far, with a last line saying how much was left out past {@link #LIMIT}. */
    String text() {
        return buffer.text();
    }

    @Override
    public void close() {
        System.setOut(previousOut);
        System.setErr(previousErr);
        buffer.seal();
    }

    private static final class Bounded extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long dropped;
        private boolean sealed;

        @Override
        public synchronized void write(int b) {
            if (sealed) {
                return;
            }
            if (kept.size() < LIMIT) {
                kept.write(b);
            } else {
                dropped++;
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            if (sealed) {
                return;
            }
            int room = Math.max(0, Math.min(len, LIMIT - kept.size()));
            kept.write(b, off, room);
            dropped += len - room;
        }

        synchronized void seal() {
            sealed = true;
        }

        synchronized String text() {
            String text = kept.toString(StandardCharsets.UTF_8);
            return dropped == 0 ? text : text + "\n... " + dropped + " more bytes not kept";
        }
    }
}
