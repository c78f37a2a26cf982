package io.paimongov.cli;

import io.paimongov.runtime.spill.FreeSpaceAtFailure;
import io.paimongov.runtime.tables.DamagedTableException;
import io.paimongov.runtime.write.ConcurrentWriterException;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names the root cause of a failure for the command line: it walks the whole throwable graph (the
 * cause chain and every suppressed throwable, each once) for an error of the environment the CLI
 * runs in, so that an operator reads "no space left on device" and the path rather than the
 * message of whatever wrapped it ({@code FileNotFoundException}, "preparing snapshot", ...).
 *
 * <p>What counts as the environment, checked in this order (the first kind found anywhere in the
 * graph wins, so an {@code OutOfMemoryError} suppressed under a later failure is still named):
 *
 * <ol>
 *   <li>{@link OutOfMemoryError}: the JVM is too small for the job; the message names the budget,
 *       the JVM's maximum heap and what to change.
 *   <li>No space left on device ({@code ENOSPC}, also as an {@link IOException} without a path,
 *       which is how {@code FileOutputStream.write} reports it): the path, when any throwable of
 *       the graph names one, else each of the directories the job writes to; each with the usable
 *       bytes of its file store that the governed write read when it failed ({@link
 *       FreeSpaceAtFailure}), before its cleanup freed the disk again, and those of now.
 *   <li>Read-only file system ({@code EROFS}) and permission denied ({@link AccessDeniedException},
 *       {@code EACCES}, {@code EPERM}): the path.
 *   <li>Another writer of the same table ({@link ConcurrentWriterException}, a governed commit
 *       refused; {@link OtherWriters.Found}, found by the demo): its message, naming the snapshot
 *       and the other commit user.
 *   <li>A damaged table ({@link DamagedTableException}, found by {@link
 *       io.paimongov.runtime.tables.TableCheck}): the table, the file and what is wrong with it, and
 *       what to do, in the command's words.
 * </ol>
 *
 * Everything else is {@link Kind#INTERNAL} with the outermost message and, when it is another
 * throwable, the innermost cause's, except an {@link
 * IllegalArgumentException} at the top, which the CLI's convention makes {@link Kind#USAGE} (a
 * setting refused, naming its key).
 *
 * <p>Stateless and thread-safe; {@link #of} never throws (a file store that cannot be read is
 * reported as such).
 */
final class RootCause {

    /** What kind of error it is, which decides the exit code; {@link #json} is the report's {@code errorKind}. */
    enum Kind {
        USAGE("usage", GovernanceCli.EXIT_USAGE),
        ENVIRONMENT("environment", GovernanceCli.EXIT_ENVIRONMENT),
        INTERNAL("internal", GovernanceCli.EXIT_FAILURE),
        /**
         * Not a root cause: the run was stopped by SIGTERM or SIGINT ({@link ShutdownCleanup});
         * set by the run, never by {@link #of}. The JVM's own status, 128 + the signal, is the
         * process's exit code; {@link #exitCode} says SIGTERM's for a caller in process.
         */
        SIGNAL("signal", GovernanceCli.EXIT_SIGTERM);

        final String json;
        final int exitCode;

        Kind(String json, int exitCode) {
            this.json = json;
            this.exitCode = exitCode;
        }
    }

    /**
     * The diagnosis.
     *
     * @param kind what kind of error it is
     * @param message one line for stderr and the report's {@code error}: the root cause with its
     *     numbers first, then, after {@code " (reported as: ...)"}, the outermost message when it
     *     is a different throwable
     */
    record Diagnosis(Kind kind, String message) {}

    /**
     * The job's sizes that an out-of-memory message names.
     *
     * @param budgetBytes the write's memory budget, or -1 when none was set
     * @param maxHeapBytes the JVM's maximum heap ({@code Runtime.maxMemory()})
     */
    record Memory(long budgetBytes, long maxHeapBytes) {
        static Memory of(long budgetBytes) {
            return new Memory(budgetBytes, Runtime.getRuntime().maxMemory());
        }
    }

    /** What to do about a damaged table where the command has no better words. */
    static final String DAMAGE_ADVICE = "restore the file from a backup, or drop the table and write it again";

    private static final String NO_SPACE = "no space left on device";
    private static final String READ_ONLY = "read-only file system";
    private static final String DENIED = "permission denied";
    private static final String NOT_PERMITTED = "operation not permitted";
    /** The JDK's {@code FileNotFoundException} and {@code FileSystemException} text: "PATH (REASON)" or "PATH: REASON". */
    private static final Pattern PATH_AND_REASON = Pattern.compile("(/[^\\s:()]*)(?: \\(|: )([^()]*)\\)?$");

    private RootCause() {}

    /**
     * Diagnoses {@code failure}.
     *
     * @param failure what the command caught
     * @param memory the sizes an out-of-memory message names
     * @param writeDirs the directories the job writes to (warehouse, spill roots), named with their
     *     free bytes when a "no space left" error carries no path of its own
     */
    static Diagnosis of(Throwable failure, Memory memory, List<Path> writeDirs) {
        return of(failure, memory, writeDirs, DAMAGE_ADVICE);
    }

    /**
     * Diagnoses {@code failure}, saying {@code damageAdvice} after a damaged table's file.
     *
     * @param damageAdvice what to do about a {@link DamagedTableException}, in the command's terms
     */
    static Diagnosis of(Throwable failure, Memory memory, List<Path> writeDirs, String damageAdvice) {
        List<Throwable> all = graph(failure);
        String outer = describe(failure);
        for (Throwable t : all) {
            if (t instanceof OutOfMemoryError) {
                return environment(outOfMemory(t, memory), t, failure, outer);
            }
        }
        for (Throwable t : all) {
            if (mentions(t, NO_SPACE)) {
                return environment(noSpace(t, all, writeDirs), t, failure, outer);
            }
        }
        for (Throwable t : all) {
            if (mentions(t, READ_ONLY)) {
                return environment("read-only file system: cannot write " + where(t, all, writeDirs), t, failure, outer);
            }
            if (t instanceof AccessDeniedException || mentions(t, DENIED) || mentions(t, NOT_PERMITTED)) {
                return environment("permission denied: cannot write " + where(t, all, writeDirs), t, failure, outer);
            }
        }
        for (Throwable t : all) {
            if (t instanceof ConcurrentWriterException || t instanceof OtherWriters.Found) {
                // Another writer of the table: the environment the command shares.
                return environment(t.getMessage(), t, failure, outer);
            }
        }
        for (Throwable t : all) {
            if (t instanceof DamagedTableException damaged) {
                // In its own words alone: a wrapper's message may quote the damaged file's bytes.
                return new Diagnosis(Kind.ENVIRONMENT, damaged.damage() + "; " + damageAdvice);
            }
        }
        if (failure instanceof IllegalArgumentException) {
            return new Diagnosis(Kind.USAGE, outer);
        }
        Throwable root = innermost(failure);
        return new Diagnosis(Kind.INTERNAL, root == failure ? outer : outer + " (caused by " + describe(root) + ")");
    }

    /** The end of the cause chain, stopping at a cycle. */
    private static Throwable innermost(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Throwable t = failure;
        while (t.getCause() != null && seen.add(t)) {
            t = t.getCause();
        }
        return t;
    }

    private static Diagnosis environment(String cause, Throwable root, Throwable outermost, String outer) {
        return new Diagnosis(Kind.ENVIRONMENT, root == outermost ? cause : cause + " (reported as: " + outer + ")");
    }

    private static String outOfMemory(Throwable oom, Memory memory) {
        String budget = memory.budgetBytes() < 0 ? "no budget"
                : "a budget of " + memory.budgetBytes() + " bytes (" + DemoReport.bytes(memory.budgetBytes()) + ")";
        return String.format(Locale.ROOT,
                "out of memory (%s) with %s in a JVM whose maximum heap is %d bytes (%s): the budget governs"
                        + " the write's buffers, and the JVM needs room for the rest of the job as well; give the"
                        + " JVM more heap (JAVA_OPTS=-Xmx...) or lower --budget",
                oom.getMessage() == null ? "OutOfMemoryError" : oom.getMessage(), budget, memory.maxHeapBytes(),
                DemoReport.bytes(memory.maxHeapBytes()));
    }

    /**
     * The path and its free bytes: those read when the write failed where the write recorded them
     * ({@link FreeSpaceAtFailure}, typed or as text an engine carried), since the failed write has
     * since removed its files; else those of now.
     */
    private static String noSpace(Throwable t, List<Throwable> all, List<Path> writeDirs) {
        List<FreeSpaceAtFailure.Record> seen = recordedFreeSpace(all);
        Path path = path(t, all);
        if (path != null) {
            return "no space left on device: cannot write " + path + " (" + free(path, seen) + ")";
        }
        StringBuilder dirs = new StringBuilder();
        // The fullest file system first: it is the likely one.
        List<Path> byFree = new ArrayList<>(writeDirs);
        byFree.sort(Comparator.comparingLong(dir -> {
            FreeSpaceAtFailure.Record then = onTheSameFileSystem(dir, seen);
            return then != null ? then.usableBytes() : usableBytes(dir);
        }));
        for (Path dir : byFree) {
            dirs.append(dirs.length() == 0 ? "" : "; ").append(dir).append(" (").append(free(dir, seen)).append(')');
        }
        return "no space left on device while writing under " + (dirs.length() == 0 ? "an unknown path" : dirs);
    }

    /** The free bytes the write recorded when it failed, from every throwable of the graph. */
    private static List<FreeSpaceAtFailure.Record> recordedFreeSpace(List<Throwable> all) {
        List<FreeSpaceAtFailure.Record> records = new ArrayList<>();
        for (Throwable t : all) {
            if (t instanceof FreeSpaceAtFailure f) {
                records.add(new FreeSpaceAtFailure.Record(f.path(), f.usableBytes()));
            } else {
                FreeSpaceAtFailure.Record carried = FreeSpaceAtFailure.parse(t.getMessage());
                if (carried != null) {
                    records.add(carried);
                }
            }
        }
        return records;
    }

    /** {@code path}'s free bytes when the write failed and now, or now alone when nothing was recorded. */
    private static String free(Path path, List<FreeSpaceAtFailure.Record> seen) {
        FreeSpaceAtFailure.Record then = onTheSameFileSystem(path, seen);
        if (then == null) {
            return free(path);
        }
        long now = usableBytes(nearestExisting(path));
        return then.usableBytes() + " bytes free on its file system when the write failed"
                + (now == Long.MAX_VALUE ? "" : ", " + now + " now");
    }

    /** The record of the file system {@code path} is on, or null. */
    private static FreeSpaceAtFailure.Record onTheSameFileSystem(Path path, List<FreeSpaceAtFailure.Record> seen) {
        Path existing = nearestExisting(path);
        if (existing == null) {
            return null;
        }
        for (FreeSpaceAtFailure.Record record : seen) {
            Path other = nearestExisting(record.path());
            try {
                if (other != null && Files.getFileStore(other).equals(Files.getFileStore(existing))) {
                    return record;
                }
            } catch (IOException | SecurityException e) {
                // Not comparable: not this one.
            }
        }
        return null;
    }

    private static Path nearestExisting(Path path) {
        Path existing = path.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return existing;
    }

    private static String where(Throwable t, List<Throwable> all, List<Path> writeDirs) {
        Path path = path(t, all);
        if (path != null) {
            return path.toString();
        }
        return writeDirs.isEmpty() ? "an unknown path" : "under " + writeDirs;
    }

    /** The path {@code t} names, else the first path any throwable of the graph names. */
    private static Path path(Throwable t, List<Throwable> all) {
        Path own = namedPath(t);
        if (own != null) {
            return own;
        }
        for (Throwable other : all) {
            Path p = namedPath(other);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    private static Path namedPath(Throwable t) {
        if (t instanceof FileSystemException fs && fs.getFile() != null) {
            return Path.of(fs.getFile());
        }
        if (t instanceof FileNotFoundException || t instanceof FileSystemException) {
            Matcher m = PATH_AND_REASON.matcher(String.valueOf(t.getMessage()));
            if (m.find()) {
                return Path.of(m.group(1));
            }
        }
        return null;
    }

    /**
     * The usable bytes of the file store of {@code path}, or of its nearest existing ancestor (the
     * file that could not be written usually does not exist).
     */
    static String free(Path path) {
        Path existing = nearestExisting(path);
        if (existing == null) {
            return "free space unknown";
        }
        try {
            long usable = Files.getFileStore(existing).getUsableSpace();
            return usable + " bytes free on its file system";
        } catch (IOException | SecurityException e) {
            long usable = new File(existing.toString()).getUsableSpace();
            return usable > 0 ? usable + " bytes free on its file system" : "free space unknown: " + e.getMessage();
        }
    }

    /** The usable bytes of the file store of {@code path}, or {@link Long#MAX_VALUE} when unknown. */
    private static long usableBytes(Path path) {
        if (path == null) {
            return Long.MAX_VALUE;
        }
        try {
            return Files.getFileStore(path).getUsableSpace();
        } catch (IOException | SecurityException e) {
            return Long.MAX_VALUE;
        }
    }

    private static boolean mentions(Throwable t, String reason) {
        if (t instanceof FileSystemException fs && fs.getReason() != null
                && fs.getReason().toLowerCase(Locale.ROOT).contains(reason)) {
            return true;
        }
        return t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains(reason);
    }

    /** {@code Type: message}, or the type alone. */
    static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** Every throwable reachable through causes and suppressed ones, outermost first, each once. */
    private static List<Throwable> graph(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> ordered = new ArrayList<>();
        Deque<Throwable> todo = new ArrayDeque<>();
        todo.add(failure);
        while (!todo.isEmpty()) {
            Throwable t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            ordered.add(t);
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            Collections.addAll(todo, t.getSuppressed());
        }
        return List.copyOf(ordered);
    }
}
