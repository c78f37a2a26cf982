package io.paimongov.runtime.spill;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The free bytes of a file system at the moment a write to it failed for want of space, attached
 * as a suppressed exception to that failure ({@link #attach}). A write that fails cleans up after
 * itself (its spill scope, its uncommitted data files): whoever reports the failure later sees the
 * disk as it is after the cleanup, often with room to spare, and would report a number that
 * explains nothing. The governed write's spill files and data files attach this where their bytes
 * are written, before anything is removed.
 *
 * <p>The message is a stable form, {@code "N bytes free on the file system of PATH when the write
 * failed"}, so that the number survives where an engine ships a failure as text (Flink's {@code
 * SerializedThrowable}, Spark's task failure): {@link #parse} reads it back.
 *
 * <p>Immutable; thread-safe.
 */
public final class FreeSpaceAtFailure extends IOException {

    private static final long serialVersionUID = 1L;
    private static final String NO_SPACE = "no space left on device";
    private static final Pattern FORM =
            Pattern.compile("(\\d+) bytes free on the file system of (.+?) when the write failed");

    private final String path;
    private final long usableBytes;

    private FreeSpaceAtFailure(Path path, long usableBytes) {
        super(usableBytes + " bytes free on the file system of " + path + " when the write failed");
        this.path = path.toString();
        this.usableBytes = usableBytes;
    }

    /** The file whose write failed, or the directory it was written under. */
    public Path path() {
        return Path.of(path);
    }

    /** The usable bytes of its file system, read when the write failed. */
    public long usableBytes() {
        return usableBytes;
    }

    /**
     * When {@code failure} is a "no space left on device" error (its own or a cause's message) and
     * carries no record yet, reads the usable bytes of {@code path}'s file system now and attaches
     * them; returns {@code failure} in any case. Never throws: a file system that cannot be read adds
     * nothing.
     *
     * @param path the file being written, or a directory under which it was; null adds nothing
     */
    public static <T extends Throwable> T attach(T failure, Path path) {
        if (path == null || !isNoSpace(failure) || recorded(failure)) {
            return failure;
        }
        long usable = usableBytes(path);
        if (usable >= 0) {
            failure.addSuppressed(new FreeSpaceAtFailure(path, usable));
        }
        return failure;
    }

    /** The record in {@code text} (a message that quotes one), or null. */
    public static Record parse(String text) {
        Matcher m = FORM.matcher(text == null ? "" : text);
        return m.find() ? new Record(Path.of(m.group(2)), Long.parseLong(m.group(1))) : null;
    }

    /** A record read back from text: what {@link #path()} and {@link #usableBytes()} said. */
    public record Record(Path path, long usableBytes) {}

    /** Whether {@code t} or one of its causes says "no space left on device". */
    static boolean isNoSpace(Throwable t) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            String text = c instanceof FileSystemException fs && fs.getReason() != null ? fs.getReason() : c.getMessage();
            if (text != null && text.toLowerCase(Locale.ROOT).contains(NO_SPACE)) {
                return true;
            }
        }
        return false;
    }

    private static boolean recorded(Throwable t) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            for (Throwable s : c.getSuppressed()) {
                if (s instanceof FreeSpaceAtFailure) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Of {@code path}'s nearest existing ancestor (the file that failed may not exist); -1 when unknown. */
    private static long usableBytes(Path path) {
        Path existing = path.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return -1;
        }
        try {
            return Files.getFileStore(existing).getUsableSpace();
        } catch (IOException | SecurityException e) {
            long usable = new File(existing.toString()).getUsableSpace();
            return usable > 0 ? usable : -1;
        }
    }
}
