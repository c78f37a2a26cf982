package io.paimongov.tck;

import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;

/**
 * What a test's world held before a write opened (the engine's temp space, the spill root, the
 * live threads, the table's latest snapshot and data files), and what the write left behind
 * compared with it: whatever is new afterwards was left by the write. A table may hold snapshots
 * before (CANCEL-4's backlog); only new ones count.
 *
 * <p>Not thread-safe: taken and read by the rule's thread.
 */
final class WriteBaseline {

    private final Set<String> engineTemp;
    private final Set<String> spillRoot;
    /** Threads alive before the write opened: the ones after close that are not here were started for it. */
    private final Set<Thread> threads;
    private final long snapshot;
    private final Set<String> dataFiles;

    private WriteBaseline(Set<String> engineTemp, Set<String> spillRoot, Set<Thread> threads, long snapshot, Set<String> dataFiles) {
        this.engineTemp = engineTemp;
        this.spillRoot = spillRoot;
        this.threads = threads;
        this.snapshot = snapshot;
        this.dataFiles = dataFiles;
    }

    static WriteBaseline take(TckSubject s, FileStoreTable table) throws IOException {
        return new WriteBaseline(
                listTree(s.dir.resolve("engine")), listTree(s.spillRoot), liveThreads(), latestSnapshotId(table), names(dataFiles(table)));
    }

    /**
     * What a write left behind in {@code s} and {@code table}, compared with this baseline; empty
     * when it left nothing. {@code context} is the write's (null when it never opened); when the
     * write did not commit, a new snapshot or new data files are left behind too.
     */
    List<String> leftovers(TckSubject s, ResourceContext context, FileStoreTable table, boolean committed) throws Exception {
        List<String> problems = new ArrayList<>();
        if (context != null) {
            MetricsSnapshot last = context.snapshot();
            if (last.reservedBytes() != 0) {
                problems.add(last.reservedBytes() + " bytes still reserved: " + context.holders());
            }
            if (!context.isClosed()) {
                problems.add("the write's resource context is still open");
            }
        }
        for (ObservedProvider.Observed o : s.provider.opened()) {
            if (o.usedAtClose.get() > 0) {
                problems.add("the allocator held " + o.usedAtClose.get() + " bytes when its resources closed");
            }
            if (o.closes.get() == 0) {
                problems.add("the engine resources were never closed");
            }
        }
        long engineNow = s.engine.engineUsedBytes();
        if (engineNow != s.engineStart) {
            problems.add("the engine's memory counter is at " + engineNow + " bytes; it started at " + s.engineStart);
        }
        // The whole spill root the write was given, not only its own scope: whatever is new there.
        Set<String> spillRoot = listTree(s.spillRoot);
        spillRoot.removeAll(this.spillRoot);
        if (!spillRoot.isEmpty()) {
            problems.add("left in the spill root " + s.spillRoot + ": " + spillRoot);
        }
        for (Path root : spillRoots(s)) {
            if (root.equals(s.spillRoot)) {
                continue;
            }
            try (Stream<Path> children = Files.list(root)) {
                children.filter(p -> p.getFileName().toString().startsWith(SpillScope.PREFIX))
                        .forEach(p -> problems.add("spill scope left behind: " + p));
            }
        }
        Set<String> engineTemp = listTree(s.dir.resolve("engine"));
        engineTemp.removeAll(this.engineTemp);
        if (!engineTemp.isEmpty()) {
            problems.add("left in the engine's temp space: " + engineTemp);
        }
        if (!committed) {
            if (latestSnapshotId(table) != snapshot) {
                problems.add("a snapshot was published: " + latestSnapshotId(table));
            }
            List<Path> files = newDataFiles(table);
            if (!files.isEmpty()) {
                problems.add(files.size() + " data files left in the table, e.g. " + files.get(0));
            }
        }
        for (Thread t : s.provider.threads()) {
            t.join(10_000);
            if (t.isAlive()) {
                problems.add("thread '" + t.getName() + "' is still running");
            }
        }
        // Any other thread started while the write ran (by the allocator, the engine's factory, the
        // runtime or Paimon) must have ended too; the JVM's own and the kit's are not judged.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : liveThreads()) {
            if (threads.contains(t) || s.provider.threads().contains(t) || notTheWrites(t)) {
                continue;
            }
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                problems.add("thread '" + t.getName() + "', started while the write ran, is still running");
            }
        }
        return problems;
    }

    private static Set<Thread> liveThreads() {
        return new java.util.HashSet<>(Thread.getAllStackTraces().keySet());
    }

    /**
     * Threads that are not the write's to end: the kit's own ({@code tck-}), and the JVM's and
     * JDK's shared ones that start on first use and live as long as the JVM.
     */
    static boolean notTheWrites(Thread t) {
        return t == Thread.currentThread() || t.getName().startsWith("tck-") || ThreadStacks.jvmThread(t);
    }

    /** The spill roots of the subject: the kit's, and every root the provider's resources named. */
    static List<Path> spillRoots(TckSubject s) {
        Set<Path> roots = new TreeSet<>();
        roots.add(s.spillRoot);
        for (ObservedProvider.Observed o : s.provider.opened()) {
            roots.addAll(o.vendor.spill().roots());
        }
        return roots.stream().filter(Files::isDirectory).toList();
    }

    /** The id of the table's latest snapshot; 0 when it has none. */
    static long latestSnapshotId(FileStoreTable table) {
        org.apache.paimon.Snapshot latest = table.snapshotManager().latestSnapshot();
        return latest == null ? 0 : latest.id();
    }

    private static Set<String> names(List<Path> files) {
        Set<String> names = new TreeSet<>();
        files.forEach(f -> names.add(f.toString()));
        return names;
    }

    /** The data files in {@code table}'s directory now that were not there before. */
    List<Path> newDataFiles(FileStoreTable table) throws IOException {
        return dataFiles(table).stream().filter(f -> !dataFiles.contains(f.toString())).toList();
    }

    static List<Path> dataFiles(FileStoreTable table) throws IOException {
        Path location = Path.of(table.location().toUri());
        if (!Files.exists(location)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(location)) {
            return walk.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().startsWith("data-")).toList();
        }
    }

    private static Set<String> listTree(Path dir) {
        Set<String> paths = new TreeSet<>();
        if (!Files.exists(dir)) {
            return paths;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.filter(p -> !p.equals(dir)).forEach(p -> paths.add(dir.relativize(p).toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return paths;
    }
}
