package io.paimongov.runtime.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The parser of {@code governance.spill.dirs}. Each entry must name an existing, writable directory
 * without a {@code ..} segment. A relative entry is resolved against the working directory now, and
 * every entry is replaced by its real path (symbolic links resolved), so the roots cannot change
 * meaning later. Stateless; thread-safe; throws {@link IllegalArgumentException} naming the key.
 */
final class SpillRoots {

    private SpillRoots() {}

    /** The comma-separated roots in {@code text}, empty entries skipped; at least one. */
    static List<Path> parse(String key, String text) {
        List<Path> dirs = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            dirs.add(root(key, part.trim()));
        }
        if (dirs.isEmpty()) {
            throw new IllegalArgumentException("'" + key + "' = '" + text + "' names no directory");
        }
        return List.copyOf(dirs);
    }

    private static Path root(String key, String entry) {
        Path given;
        try {
            given = Path.of(entry);
        } catch (InvalidPathException e) {
            throw bad(key, entry, "which is not a valid path (" + e.getReason() + ")");
        }
        for (Path segment : given) {
            if (segment.toString().equals("..")) {
                throw bad(key, entry, "which has a '..' segment; name the directory itself");
            }
        }
        Path dir = given.toAbsolutePath().normalize();
        if (Files.isRegularFile(dir)) {
            throw bad(key, entry, "which is a file, not a directory");
        }
        if (!Files.isDirectory(dir)) {
            throw bad(key, entry, "which is not an existing directory");
        }
        if (!Files.isWritable(dir)) {
            throw bad(key, entry, "which this process cannot write to");
        }
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            throw bad(key, entry, "whose real path cannot be read (" + e + ")");
        }
    }

    private static IllegalArgumentException bad(String key, String entry, String why) {
        return new IllegalArgumentException("'" + key + "' names '" + entry + "', " + why);
    }
}
