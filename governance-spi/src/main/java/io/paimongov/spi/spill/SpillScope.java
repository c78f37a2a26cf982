package io.paimongov.spi.spill;

import io.paimongov.spi.SpillLocations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write's private spill directory: {@code <root>/paimon-gov-<pid>-<uuid>}, owner-only
 * permissions (0700 where the file system has POSIX permissions), with a lease file naming the
 * owner process. {@link #delete()} removes it with everything in it.
 *
 * <p>A process that dies leaves its scopes behind; {@link #sweepDead} removes scopes whose owner
 * process is gone, so the next write on the same roots cleans up after a crash.
 *
 * <p><b>Thread-safety:</b> thread-safe; {@link #delete()} is idempotent.
 */
public final class SpillScope {

    private static final Logger LOG = LoggerFactory.getLogger(SpillScope.class);

    /** Prefix of every scope directory's name. */
    public static final String PREFIX = "paimon-gov-";

    /** Name of the lease file inside a scope. */
    public static final String LEASE = "paimon-gov.lease";

    private final Path dir;
    private volatile boolean deleted;

    private SpillScope(Path dir) {
        this.dir = dir;
    }

    /**
     * Creates a fresh scope under the first usable root of {@code locations}.
     *
     * @throws UncheckedIOException when no root can hold a scope
     */
    public static SpillScope create(SpillLocations locations, String writeName) {
        long pid = ProcessHandle.current().pid();
        IOException last = null;
        for (Path root : locations.roots()) {
            Path dir = root.resolve(PREFIX + pid + "-" + UUID.randomUUID());
            try {
                createPrivateDirectory(dir);
                Files.writeString(dir.resolve(LEASE), lease(pid, writeName), StandardCharsets.UTF_8);
                return new SpillScope(dir);
            } catch (IOException e) {
                last = e;
                LOG.warn("cannot create a spill scope under {}: {}", root, e.toString());
            }
        }
        throw new UncheckedIOException("no spill root can hold a spill scope: " + locations.roots(), last);
    }

    private static void createPrivateDirectory(Path dir) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createDirectory(
                    dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectory(dir);
        }
    }

    private static String lease(long pid, String writeName) {
        String started =
                ProcessHandle.current().info().startInstant().map(Instant::toString).orElse("unknown");
        return "pid=" + pid + "\nprocessStart=" + started + "\nwrite=" + writeName + "\n";
    }

    /**
     * Removes scopes under {@code locations}' roots whose owner process is no longer alive.
     *
     * @return how many scopes were removed
     */
    public static int sweepDead(SpillLocations locations) {
        int swept = 0;
        for (Path root : locations.roots()) {
            try (Stream<Path> children = Files.list(root)) {
                for (Path child : (Iterable<Path>) children::iterator) {
                    if (isDeadScope(child)) {
                        deleteTree(child);
                        swept++;
                        LOG.info("removed spill scope {} left by a dead process", child);
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                LOG.warn("cannot sweep spill root {}: {}", root, e.toString());
            }
        }
        return swept;
    }

    static boolean isDeadScope(Path child) {
        String name = child.getFileName().toString();
        if (!name.startsWith(PREFIX) || !Files.isDirectory(child)) {
            return false;
        }
        int dash = name.indexOf('-', PREFIX.length());
        if (dash < 0) {
            return false;
        }
        long pid;
        try {
            pid = Long.parseLong(name.substring(PREFIX.length(), dash));
        } catch (NumberFormatException e) {
            return false;
        }
        return ProcessHandle.of(pid).map(p -> !p.isAlive() || !sameStart(p, child)).orElse(true);
    }

    /** A live process with this pid that started after the lease was written is a reused pid. */
    private static boolean sameStart(ProcessHandle process, Path scope) {
        try {
            String lease = Files.readString(scope.resolve(LEASE), StandardCharsets.UTF_8);
            String recorded =
                    lease.lines()
                            .filter(l -> l.startsWith("processStart="))
                            .map(l -> l.substring("processStart=".length()))
                            .findFirst()
                            .orElse("unknown");
            String actual = process.info().startInstant().map(Instant::toString).orElse("unknown");
            return recorded.equals("unknown") || actual.equals("unknown") || recorded.equals(actual);
        } catch (IOException e) {
            return true;
        }
    }

    /** The scope directory. */
    public Path dir() {
        return dir;
    }

    /** Whether the scope directory still exists. */
    public boolean exists() {
        return Files.exists(dir);
    }

    /** Deletes the scope and everything in it. Idempotent; logs what it cannot delete. */
    public void delete() {
        if (deleted) {
            return;
        }
        try {
            deleteTree(dir);
            deleted = true;
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot delete spill scope {}: {}", dir, e.toString());
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Override
    public String toString() {
        return dir.toString();
    }
}
