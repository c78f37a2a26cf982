package io.paimongov.cli;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks an option that names a directory the command creates or writes into ({@code
 * --warehouse}, {@code --work-dir}, {@code --out}, {@code --junit-xml}) before anything runs: a
 * path that is a file, or that lies under a file, can never be one, and without this check it
 * fails later with whatever the first writer makes of it ({@code FileAlreadyExistsException},
 * "Not a directory" from deep inside Paimon).
 *
 * <p>Stateless and thread-safe.
 */
final class DirOption {

    private DirOption() {}

    /**
     * Why {@code dir} cannot be a directory, or null when it is one or can be created: it is a file,
     * or its nearest existing ancestor is a file.
     */
    static String problem(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        if (Files.exists(absolute)) {
            return Files.isDirectory(absolute) ? null : "'" + dir + "' is a file, not a directory";
        }
        for (Path up = absolute.getParent(); up != null; up = up.getParent()) {
            if (Files.exists(up, LinkOption.NOFOLLOW_LINKS)) {
                return Files.isDirectory(up) ? null
                        : "'" + dir + "' lies under '" + up + "', which is a file, not a directory";
            }
        }
        return null;
    }

    /** Throws the usage error naming {@code option} when {@code dir} cannot be a directory; a null {@code dir} passes. */
    static void require(CommandSpec spec, String option, Path dir) {
        String problem = dir == null ? null : problem(dir);
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + problem);
        }
    }
}
