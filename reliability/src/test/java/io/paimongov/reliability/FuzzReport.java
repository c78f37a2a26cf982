package io.paimongov.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The governance fuzzer's report, {@code target/governance-fuzz-report.txt}: the settings, a line
 * when an iteration starts (so the seed of an iteration that killed the JVM is the last line), a
 * line per iteration with how each write ended, and a summary. Each line is also printed and
 * written through at once. Counts are reported, never asserted.
 *
 * <p>Thread-safe (synchronized): the test's thread writes it.
 */
final class FuzzReport {

    private final Path file;
    private final long start = System.nanoTime();
    private int iterations;
    private int failedIterations;
    private int writes;
    private int commits;
    private int cancelsFired;
    private int shrinks;
    private int spilled;
    private long spillFiles;
    private final Map<String, Integer> failures = new TreeMap<>();

    FuzzReport(Path file, FuzzSettings settings) {
        this.file = file;
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, "", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        line("governance fuzzer: " + settings.describe());
    }

    synchronized void started(FuzzCase c) {
        line("start seed " + c.seed() + ": " + c.describe());
    }

    /** One line for an iteration that ran: its seed, verdict, time and each write's outcome. */
    synchronized void ended(FuzzIteration it, boolean passed, long millis) {
        iterations++;
        if (!passed) {
            failedIterations++;
        }
        if (it.shrinkFired) {
            shrinks++;
        }
        for (FuzzWrite w : it.writes) {
            writes++;
            if (w.committed) {
                commits++;
            } else if (w.error != null) {
                failures.merge(FuzzWrite.errorType(w.error), 1, Integer::sum);
            }
            if (w.cancelAttempted) {
                cancelsFired++;
            }
            long files = w.context == null ? 0 : w.context.snapshot().spillFiles();
            spillFiles += files;
            spilled += files > 0 ? 1 : 0;
        }
        line("seed " + it.fuzzCase.seed() + ": " + (passed ? "passed" : "FAILED") + " in " + millis / 1000.0 + " s"
                + (it.shrinkFired ? ", another consumer took " + it.hogTook + " bytes" : "") + "; "
                + it.writes.stream().map(w -> "w" + w.plan.index() + " " + w.outcome() + (w.error == null ? "" : " [" + abbreviate(Errors.summary(w.error)) + "]")).collect(Collectors.joining(", ")));
    }

    /** An iteration that broke off before its checks (its setup threw). */
    synchronized void brokeOff(long seed, String why) {
        iterations++;
        failedIterations++;
        line("seed " + seed + ": BROKE OFF: " + why);
    }

    synchronized void summary() {
        line("summary: " + iterations + " iterations (" + failedIterations + " failed), " + writes + " writes, " + commits
                + " committed, failures by type " + failures + ", cancels fired " + cancelsFired + ", engine shrunk in " + shrinks
                + " iterations, " + spilled + " writes spilled (" + spillFiles + " spill files), " + (System.nanoTime() - start) / 1_000_000 / 1000.0 + " s");
    }

    private static String abbreviate(String text) {
        return text.length() <= 120 ? text : text.substring(0, 120) + "...";
    }

    private void line(String text) {
        System.out.println("[fuzz] " + text);
        try {
            Files.writeString(file, text + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
