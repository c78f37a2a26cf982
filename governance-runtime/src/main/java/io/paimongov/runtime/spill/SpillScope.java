package io.paimongov.runtime.spill;

import io.paimongov.spi.SpillLocations;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write's private spill directory: {@code <root>/paimon-gov-<pid>-<uuid>}, owner-only
 * permissions (0700 where the file system has POSIX permissions), with a lease file (0600) naming
 * the owner process. {@link #delete()} removes it with everything in it.
 *
 * <p>Confinement: the directory's name is made of the process id and a random UUID only; the
 * write's name goes into the lease file (with line breaks and other control characters replaced),
 * never into a path, so no write name can put a scope outside its root. The directory is created
 * with {@code createDirectory}, which fails rather than follow anything already at that name. On a
 * file system without POSIX permissions (Windows, some network mounts) the directory and its files
 * get the file system's defaults: the owner-only guarantee then rests on the root's own access
 * rules ({@code docs/reliability.md}).
 *
 * <p>A process that dies leaves its scopes behind; {@link #sweepDead} removes scopes whose owner
 * process is gone, so the next write on the same roots cleans up after a crash.
 *
 * <p><b>Thread-safety:</b> thread-safe; {@link #delete()} is idempotent once it succeeded.
 */
public final class SpillScope {

    private static final Logger LOG = LoggerFactory.getLogger(SpillScope.class);

    /** Prefix of every scope directory's name. */
    public static final String PREFIX = "paimon-gov-";

    /** Name of the lease file inside a scope. */
    public static final String LEASE = "paimon-gov.lease";

    /** Owner-only directory: rwx------. */
    static final Set<PosixFilePermission> DIR_PERMISSIONS = PosixFilePermissions.fromString("rwx------");

    /** Owner-only file: rw-------. */
    static final Set<PosixFilePermission> FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-------");

    private final Path dir;
    private volatile boolean deleted;

    private SpillScope(Path dir) {
        this.dir = dir;
    }

    /**
     * Creates a fresh scope under the first usable root of {@code locations}.
     *
     * @throws UncheckedIOException when no root can hold a scope; the message names {@value
     *     GovernanceOptions#SPILL_DIRS} and why each root refused
     */
    public static SpillScope create(SpillLocations locations, String writeName) {
        long pid = ProcessHandle.current().pid();
        IOException last = null;
        List<String> refusals = new ArrayList<>();
        for (Path root : locations.roots()) {
            Path dir = root.resolve(PREFIX + pid + "-" + UUID.randomUUID());
            try {
                createPrivateDirectory(dir);
                createPrivateFile(dir.resolve(LEASE));
                Files.writeString(dir.resolve(LEASE), lease(pid, writeName), StandardCharsets.UTF_8);
                return new SpillScope(dir);
            } catch (IOException e) {
                last = e;
                refusals.add(root + " (" + e + ")");
                LOG.warn("cannot create a spill scope under {}: {}", root, e.toString());
                deleteQuietly(dir);
            }
        }
        throw new UncheckedIOException(
                "no spill root can hold a spill scope; check '" + GovernanceOptions.SPILL_DIRS + "' (or the engine's"
                        + " temp dirs): " + String.join(", ", refusals),
                last);
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    private static void createPrivateDirectory(Path dir) throws IOException {
        if (posix()) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR_PERMISSIONS));
        } else {
            Files.createDirectory(dir);
        }
    }

    /**
     * Creates {@code file} readable and writable by the owner only (0600 where the file system has
     * POSIX permissions). If it already exists (Paimon may open a channel path again), its
     * permissions are set to 0600 instead; it is never followed out of the scope because the caller
     * checked the path is inside it and nobody else can write in a 0700 directory.
     */
    static void createPrivateFile(Path file) throws IOException {
        if (!posix()) {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
            return;
        }
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE_PERMISSIONS));
        } catch (FileAlreadyExistsException e) {
            Files.setPosixFilePermissions(file, FILE_PERMISSIONS);
        }
    }

    private static void deleteQuietly(Path dir) {
        try {
            deleteTree(dir);
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot remove the half-made spill scope {}: {}", dir, e.toString());
        }
    }

    private static String lease(long pid, String writeName) {
        String started =
                ProcessHandle.current().info().startInstant().map(Instant::toString).orElse("unknown");
        return "pid=" + pid + "\nprocessStart=" + started + "\nwrite=" + printable(writeName) + "\n";
    }

    /** The write's name on one line: a name cannot add lines (a forged processStart) to the lease. */
    static String printable(String writeName) {
        return String.valueOf(writeName).replaceAll("\\p{Cntrl}", "?");
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
                        try {
                            deleteTree(child);
                            swept++;
                            LOG.info("removed spill scope {} left by a dead process", child);
                        } catch (IOException e) {
                            LOG.warn("cannot remove spill scope {} left by a dead process: {}", child, e.toString());
                        }
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

    /**
     * Deletes the scope and everything in it: every entry is tried, even after one could not be
     * deleted. Idempotent once it succeeded; after a failure a later call tries again.
     *
     * @throws UncheckedIOException when something is left: the message names the scope, how many
     *     entries are left and the first that could not be deleted; each failure is suppressed in it.
     *     The scope stays (its lease names this process, so {@link #sweepDead} removes it once the
     *     process is gone).
     */
    public void delete() {
        if (deleted) {
            return;
        }
        try {
            deleteTree(dir);
            deleted = true;
        } catch (IOException e) {
            long left = countLeft(dir);
            UncheckedIOException failure = new UncheckedIOException(
                    "cannot delete spill scope " + dir + ": " + left + " entries are left in it (" + e.getMessage() + ")", e);
            LOG.warn("{}", failure.getMessage());
            throw failure;
        }
    }

    private static long countLeft(Path dir) {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.count();
        } catch (IOException | UncheckedIOException e) {
            return 1;
        }
    }

    /**
     * Deletes {@code path} and everything under it, deepest first, trying every entry; throws the
     * first failure (the others suppressed) when something is left.
     */
    private static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(path)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        IOException failure = null;
        for (Path p : all) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                if (failure == null) {
                    failure = new IOException("cannot delete " + p + ": " + e, e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return dir.toString();
    }
}
