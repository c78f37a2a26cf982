package io.paimongov.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A one-line progress bar on the terminal, redrawn in place with a carriage return. Disabled (every
 * call returns at once) unless the caller asks for it, which the demo does only when stderr is a
 * terminal and the output is not JSON, so pipes and logs never see control characters.
 *
 * <p>Lines are cut at {@value #MAX_LINE} characters. Redraws at most every {@value #REDRAW_MILLIS} ms, so callers may call {@link #update} per row;
 * the detail text is computed only when a line is drawn.
 *
 * <p>Not thread-safe: used by the writing thread only.
 */
final class Progress {

    private static final long REDRAW_MILLIS = 200;
    private static final int BAR = 16;
    /** Lines stay within an 80-column terminal: a wrapped line cannot be redrawn with '\r'. */
    private static final int MAX_LINE = 79;

    private final PrintWriter err;
    private final boolean enabled;
    private long lastDraw;
    private int lastWidth;

    private Progress(PrintWriter err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    /** A bar on {@code err} when {@code enabled}, else one that draws nothing. */
    static Progress on(PrintWriter err, boolean enabled) {
        return new Progress(err, enabled);
    }

    /**
     * Shows {@code phase} with {@code done} of {@code total} (a bar when {@code total > 0}) and
     * {@code detail}.
     */
    void update(String phase, long done, long total, Supplier<String> detail) {
        if (!enabled) {
            return;
        }
        long now = System.currentTimeMillis();
        if (now - lastDraw < REDRAW_MILLIS) {
            return;
        }
        lastDraw = now;
        StringBuilder line = new StringBuilder(phase).append(' ');
        if (total > 0) {
            int filled = (int) (BAR * Math.min(done, total) / total);
            line.append('[').append("#".repeat(filled)).append(".".repeat(BAR - filled)).append("] ");
            line.append(String.format(Locale.ROOT, "%3d%% ", 100 * done / total));
        }
        line.append(String.format(Locale.ROOT, "%,d rows  ", done)).append(detail.get());
        draw(line.toString());
    }

    /** Shows {@code phase} alone, at once. */
    void phase(String phase) {
        if (enabled) {
            draw(phase + " ...");
            lastDraw = System.currentTimeMillis();
        }
    }

    /** Clears the line, so what follows starts on a clean one. */
    void clear() {
        if (enabled && lastWidth > 0) {
            err.print("\r" + " ".repeat(lastWidth) + "\r");
            err.flush();
            lastWidth = 0;
        }
    }

    private void draw(String text) {
        String line = text.length() > MAX_LINE ? text.substring(0, MAX_LINE) : text;
        // Pads with spaces over a longer previous line instead of relying on terminal escapes.
        err.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
        err.flush();
        lastWidth = line.length();
    }
}
