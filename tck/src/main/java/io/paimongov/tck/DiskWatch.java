package io.paimongov.tck;

import io.paimongov.runtime.spill.SpillScope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches the file system while a write runs, for SPILL-8 (docs/spi.md SPILL.8): what is created
 * outside the places a write may put files. The places watched are the kit's directory of the test
 * (all of it but the spill root, the engine's temp space and the warehouse), {@code java.io.tmpdir},
 * the working directory and every spill root the provider named outside the kit's directory.
 *
 * <p>How. One {@link WatchService} (inotify on Linux) with a watch on each directory of those trees,
 * added for each directory as it appears; its entries are then listed too, since some may have come
 * before the watch. The kit's directory is this test's alone, so everything new there counts. The
 * other places are shared with other processes (another build's temp files), so an entry there counts
 * only when this process made it: its name, or the name of a directory it is in below the place, is
 * a spill scope of this process ({@code paimon-gov-<pid>-...}), or this process holds a file open at
 * or under it ({@code /proc/self/fd}, read when the entry is seen and then every {@link #SCAN_MILLIS}
 * ms while some entry is unexplained; Linux only). {@link #stop()} creates a fence file in the kit's
 * directory and waits until its event is read: one watch service reports its events in order, so
 * everything made before the fence has been seen by then.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} on the rule's thread; events are read on the
 * daemon thread {@code tck-disk-watch}.
 */
final class DiskWatch implements AutoCloseable {

    /** How often open files are read while an entry in a shared place is unexplained. */
    static final long SCAN_MILLIS = 10;
    /** Directories this deep below a shared place are judged but not watched: other processes' trees can be large. */
    private static final int SHARED_DEPTH = 3;
    private static final Path OPEN_FILES = Path.of("/proc/self/fd");

    /** A watched tree: its name in messages, its root, whether other processes write there too. */
    record Place(String name, Path root, boolean shared) {}

    /** An entry created outside the allowed places, and the place it was created in. */
    record Found(Path path, Place place) {}

    private final WatchService service;
    private final Set<Path> allowed;
    private final Path fence;
    private final String ownScopes = SpillScope.PREFIX + ProcessHandle.current().pid() + "-";
    /**
     * The kit's own directories ({@code paimon-gov-tck-*}: other tests' worlds, probes, jqwik's
     * database), never the write's: a write of an earlier test that Paimon's shared file-writing
     * thread finishes late can even make one again after the test deleted it.
     */
    private static final String KIT = "paimon-gov-tck-";
    private final Map<WatchKey, Path> watched = new ConcurrentHashMap<>();
    private final Map<WatchKey, Place> placeOf = new ConcurrentHashMap<>();
    private final Set<Path> seen = new HashSet<>();
    private final Map<Path, Found> found = new LinkedHashMap<>();
    private final Map<Path, Place> unexplained = new LinkedHashMap<>();
    private final AtomicInteger overflows = new AtomicInteger();
    private final CountDownLatch drained = new CountDownLatch(1);
    private final Thread reader;
    private boolean fenced;
    private volatile boolean stopped;
    private volatile RuntimeException failure;

    private DiskWatch(List<Place> places, Set<Path> allowed, Path fence) throws IOException {
        this.service = FileSystems.getDefault().newWatchService();
        this.allowed = allowed;
        this.fence = fence;
        for (Place place : places) {
            if (place.shared()) {
                register(place.root(), place);
            } else {
                registerTree(place.root(), place);
            }
        }
        this.reader = new Thread(this::read, "tck-disk-watch");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts watching for subject {@code s}: its own directory ({@code s.dir}) but for {@code
     * allowed}, and the shared places, each once (a place inside an earlier one is left out).
     */
    static DiskWatch start(TckSubject s, Set<Path> allowed, List<Path> providerRoots) throws IOException {
        Set<Path> real = new HashSet<>();
        for (Path a : allowed) {
            real.add(a.toRealPath());
        }
        List<Place> places = new ArrayList<>();
        places.add(new Place("the kit's directory " + s.dir, s.dir.toRealPath(), false));
        places.add(new Place("java.io.tmpdir", Path.of(System.getProperty("java.io.tmpdir")).toRealPath(), true));
        places.add(new Place("the working directory", Path.of("").toRealPath(), true));
        for (Path root : providerRoots) {
            if (Files.isDirectory(root)) {
                places.add(new Place("the spill root the provider named", root.toRealPath(), true));
            }
        }
        List<Place> distinct = new ArrayList<>();
        for (Place p : places) {
            boolean covered = distinct.stream().anyMatch(d -> p.root().startsWith(d.root()))
                    || real.stream().anyMatch(a -> p.root().startsWith(a));
            if (!covered) {
                distinct.add(p);
            }
        }
        return new DiskWatch(distinct, real, s.dir.toRealPath().resolve(".tck-fence-" + System.nanoTime()));
    }

    /**
     * Stops watching once every event up to now has been read, and returns what was created outside
     * the allowed places, outermost first (an entry inside one found is not listed again).
     *
     * @throws IllegalStateException when the watch failed or its fence was not seen within 60 s
     */
    List<Found> stop() throws IOException, InterruptedException {
        Files.createFile(fence);
        try {
            if (!drained.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the file system watch did not report its fence file " + fence + " within 60 s");
            }
        } finally {
            stopped = true;
            reader.join();
            Files.deleteIfExists(fence);
            service.close();
        }
        if (failure != null) {
            throw failure;
        }
        List<Found> outermost = new ArrayList<>();
        for (Found f : found.values()) {
            if (outermost.stream().noneMatch(o -> f.path().startsWith(o.path()))) {
                outermost.add(f);
            }
        }
        return outermost;
    }

    /** Entries {@link #stop()} found under {@code path}, itself included. */
    int entriesUnder(Path path) {
        return (int) found.keySet().stream().filter(p -> p.startsWith(path)).count();
    }

    /** Times the watch service lost events because its queue overflowed. */
    int overflows() {
        return overflows.get();
    }

    @Override
    public void close() throws IOException {
        stopped = true;
        service.close();
    }

    /**
     * Reads events until the fence's, then drains what is queued: an event that came before the
     * fence's may sit in a key queued again behind the fence's key. Counts {@link #drained} down
     * when done, also when it failed.
     */
    private void read() {
        try {
            long lastScan = 0;
            while (!stopped && !fenced) {
                WatchKey key = service.poll(SCAN_MILLIS, TimeUnit.MILLISECONDS);
                if (key != null) {
                    handle(key);
                }
                if (!unexplained.isEmpty() && System.nanoTime() - lastScan > TimeUnit.MILLISECONDS.toNanos(SCAN_MILLIS)) {
                    explain(openFiles());
                    lastScan = System.nanoTime();
                }
            }
            for (WatchKey key = service.poll(); key != null; key = service.poll()) {
                handle(key);
            }
            explain(openFiles());
        } catch (java.nio.file.ClosedWatchServiceException | InterruptedException e) {
            // stopped
        } catch (IOException | RuntimeException e) {
            failure = new IllegalStateException("the file system watch failed: " + e, e);
        } finally {
            drained.countDown();
        }
    }

    private void handle(WatchKey key) throws IOException {
        Path dir = watched.get(key);
        Place place = placeOf.get(key);
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                overflows.incrementAndGet();
                continue;
            }
            Path entry = dir.resolve((Path) event.context());
            if (entry.equals(fence)) {
                fenced = true;
                continue;
            }
            created(entry, place);
        }
        if (!key.reset()) {
            watched.remove(key);
            placeOf.remove(key);
        }
    }

    /** An entry that appeared in {@code place}: judged, and watched too when it is a directory. */
    private void created(Path entry, Place place) throws IOException {
        if (allowed.stream().anyMatch(entry::startsWith) || (place.shared() && under(entry, place, KIT)) || !seen.add(entry)) {
            return;
        }
        judge(entry, place);
        boolean deep = place.shared() && place.root().relativize(entry).getNameCount() >= SHARED_DEPTH;
        if (!deep && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
            watch(entry, place);
        }
    }

    /** Watches a directory that appeared, then takes what it already holds for created: it may have come first. */
    private void watch(Path dir, Place place) throws IOException {
        if (!register(dir, place)) {
            return;
        }
        // Listed first and judged after: the listing's own descriptor must not count as a file held open.
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            entries.forEach(children::add);
        } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException gone) {
            // deleted before it could be listed; what was made in it was judged by name or not at all
        }
        for (Path entry : children) {
            created(entry, place);
        }
    }

    /** Watches {@code dir}; false when it is gone already. */
    private boolean register(Path dir, Place place) throws IOException {
        WatchKey key;
        try {
            key = dir.register(service, StandardWatchEventKinds.ENTRY_CREATE);
        } catch (java.nio.file.NoSuchFileException gone) {
            return false;
        }
        watched.put(key, dir);
        placeOf.put(key, place);
        return true;
    }

    /** Watches every directory of a private place that exists now, the allowed ones aside. */
    private void registerTree(Path root, Place place) throws IOException {
        Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(Path dir, java.nio.file.attribute.BasicFileAttributes attrs)
                    throws IOException {
                if (allowed.contains(dir)) {
                    return java.nio.file.FileVisitResult.SKIP_SUBTREE;
                }
                register(dir, place);
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
    }

    private void judge(Path entry, Place place) {
        if (!place.shared() || ownScope(entry, place)) {
            found.put(entry, new Found(entry, place));
        } else {
            unexplained.put(entry, place);
            explain(openFiles());
        }
    }

    /** Whether {@code entry} or a directory it is in below {@code place} is a spill scope of this process. */
    private boolean ownScope(Path entry, Place place) {
        return under(entry, place, ownScopes);
    }

    /** Whether the name of {@code entry}, or of a directory it is in below {@code place}, starts with {@code prefix}. */
    private static boolean under(Path entry, Place place, String prefix) {
        for (Path name : place.root().relativize(entry)) {
            if (name.toString().startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** Unexplained entries at or above a file this process has open are this process's. */
    private void explain(Set<Path> open) {
        unexplained.entrySet().removeIf(e -> {
            boolean mine = open.stream().anyMatch(f -> f.startsWith(e.getKey()));
            if (mine) {
                found.put(e.getKey(), new Found(e.getKey(), e.getValue()));
            }
            return mine;
        });
    }

    /**
     * The files this process has open, from {@code /proc/self/fd}, directories left out (a listing
     * somewhere in the process says nothing about who made the directory); empty where there is no
     * such directory. A file deleted while open is listed under the path it had.
     */
    private static Set<Path> openFiles() {
        Set<Path> open = new HashSet<>();
        if (!Files.isDirectory(OPEN_FILES)) {
            return open;
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(OPEN_FILES)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("/") && !Files.isDirectory(fd)) {
                        open.add(Path.of(target.endsWith(" (deleted)") ? target.substring(0, target.length() - 10) : target));
                    }
                } catch (IOException | UnsupportedOperationException closedMeanwhile) {
                    // the descriptor closed between listing and reading
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return open;
    }
}
