package io.paimongov.runtime.spill;

import io.paimongov.runtime.internal.files.PrivateFiles;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write's private spill directory: {@code <root>/paimon-gov-<pid>-<uuid>}, owner-only
 * permissions (0700 where the file system has POSIX permissions), with a lease file (0600) naming
 * the owner process. {@link #delete()} removes it with everything in it.
 *
 * <p>Made when first needed. {@link #open} only checks the roots (an existing directory this
 * process may write, no file made) and fixes the directory's path under the first root that passes;
 * {@link #make()} creates the directory and its lease when the write first needs its disk (a spill
 * file, a temp directory handed to Paimon). A write that never spills touches the disk neither when
 * it opens nor when it ends, and a cancelled one has nothing to delete. If the directory cannot be
 * made under that root, the later roots are tried in order (SPILL.4).
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
 * process is gone, so the next write on the same roots cleans up after a crash. A scope is swept by
 * its lease's process, so it does not matter when it was made.
 *
 * <p><b>Thread-safety:</b> thread-safe: {@link #make()} and {@link #delete()} exclude each other,
 * and once {@link #delete()} was called nothing is made any more; {@link #delete()} is idempotent
 * once it succeeded.
 */
public final class SpillScope {

    private static final Logger LOG = LoggerFactory.getLogger(SpillScope.class);

    /** Prefix of every scope directory's name. */
    public static final String PREFIX = "paimon-gov-";

    /** Name of the lease file inside a scope. */
    public static final String LEASE = "paimon-gov.lease";

    private final String name;
    private final String writeName;
    /** The roots to make the scope under, in order: the first is the one that passed the check at open. */
    private final List<Path> roots;
    /** Why the roots before {@link #roots} failed the check at open, for the message when none works. */
    private final List<String> refusedAtOpen;
    private volatile Path dir;
    /** Written under this. */
    private volatile boolean made;
    /** Written under this: set by the first {@link #delete()}, after which nothing is made. */
    private volatile boolean closed;
    private volatile boolean deleted;

    private SpillScope(String name, String writeName, List<Path> roots, List<String> refusedAtOpen) {
        this.name = name;
        this.writeName = writeName;
        this.roots = roots;
        this.refusedAtOpen = refusedAtOpen;
        this.dir = roots.get(0).resolve(name);
    }

    /**
     * Checks {@code locations}' roots without making anything and returns a scope whose directory
     * lies under the first root that is an existing directory this process may write; the directory
     * is made by {@link #make()}.
     *
     * @throws UncheckedIOException when no root passes; the message names {@code
     *     governance.spill.dirs} and why each root refused
     */
    public static SpillScope open(SpillLocations locations, String writeName) {
        List<String> refusals = new ArrayList<>();
        List<Path> roots = locations.roots();
        IOException last = null;
        for (int i = 0; i < roots.size(); i++) {
            Path root = roots.get(i);
            IOException unusable = unusable(root);
            if (unusable == null) {
                String name = PREFIX + ProcessHandle.current().pid() + "-" + UUID.randomUUID();
                return new SpillScope(name, writeName, List.copyOf(roots.subList(i, roots.size())), List.copyOf(refusals));
            }
            last = unusable;
            refusals.add(root + " (" + unusable + ")");
            LOG.warn("spill root {} cannot hold a spill scope: {}", root, unusable.toString());
        }
        throw noRoot(refusals, last);
    }

    /** {@link #open} and {@link #make()} at once: a scope whose directory exists now. */
    public static SpillScope create(SpillLocations locations, String writeName) {
        SpillScope scope = open(locations, writeName);
        scope.make();
        return scope;
    }

    /** Why {@code root} cannot hold a scope, judged without making anything; null when it can. */
    private static IOException unusable(Path root) {
        if (Files.isRegularFile(root)) {
            return new NotDirectoryException(root.toString());
        }
        if (!Files.isDirectory(root)) {
            return new NoSuchFileException(root.toString(), null, "not an existing directory");
        }
        if (!Files.isWritable(root)) {
            return new AccessDeniedException(root.toString(), null, "this process cannot write to it");
        }
        return null;
    }

    private static UncheckedIOException noRoot(List<String> refusals, IOException last) {
        return new UncheckedIOException(
                "no spill root can hold a spill scope; check '" + GovernanceOptions.SPILL_DIRS + "' (or the engine's"
                        + " temp dirs): " + String.join(", ", refusals),
                last);
    }

    /**
     * Makes the directory and its lease unless they exist: under the root chosen at open, else under
     * the first later root that accepts it. Idempotent.
     *
     * @return the scope's directory
     * @throws UncheckedIOException when no root can hold it (the message names {@code
     *     governance.spill.dirs} and why each root refused, as {@link #open}), or once the
     *     scope was deleted
     */
    public Path make() {
        if (made && !closed) {
            return dir;
        }
        synchronized (this) {
            if (closed) {
                throw new UncheckedIOException(new IOException("the spill scope " + dir + " was deleted: its write is closed"));
            }
            if (made) {
                return dir;
            }
            long pid = ProcessHandle.current().pid();
            List<String> refusals = new ArrayList<>(refusedAtOpen);
            IOException last = null;
            for (Path root : roots) {
                Path candidate = root.resolve(name);
                boolean created = false;
                try {
                    PrivateFiles.createPrivateDirectory(candidate);
                    created = true;
                    PrivateFiles.createPrivateFile(candidate.resolve(LEASE));
                    Files.writeString(candidate.resolve(LEASE), lease(pid, writeName), StandardCharsets.UTF_8);
                    dir = candidate;
                    made = true;
                    return candidate;
                } catch (IOException e) {
                    last = e;
                    refusals.add(root + " (" + e + ")");
                    LOG.warn("cannot create a spill scope under {}: {}", root, e.toString());
                    if (created) {
                        deleteQuietly(candidate);
                    }
                }
            }
            throw noRoot(refusals, last);
        }
    }

    /** Whether the directory was made (and not deleted since). */
    public boolean isMade() {
        return made && !deleted;
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

    /**
     * The scope's directory: where it is, once made; before that, where it will be made unless its
     * root refuses then.
     */
    public Path dir() {
        return dir;
    }

    /** Whether the scope directory exists now. */
    public boolean exists() {
        return Files.exists(dir);
    }

    /**
     * Deletes the scope and everything in it, if it was made; from the first call on, nothing is
     * made any more. Every entry is tried, even after one could not be deleted. Idempotent once it
     * succeeded; after a failure a later call tries again.
     *
     * @throws UncheckedIOException when something is left: the message names the scope, how many
     *     entries are left and the first that could not be deleted; each failure is suppressed in it.
     *     The scope stays (its lease names this process, so {@link #sweepDead} removes it once the
     *     process is gone).
     */
    public synchronized void delete() {
        closed = true;
        if (deleted || !made) {
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
