package io.paimongov.benchmarks.cancel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;

/**
 * What a cancelled job left behind, looked at once the engine says the job (Flink) or every task
 * (Spark) ended. Each field comes from outside the write: the table's files, the engine's temp
 * directories, the engine's own memory counters.
 *
 * @param snapshot whether the table has a snapshot (the job committed something; its table was
 *     empty before and no checkpoint or driver commit was due)
 * @param spillScopes directories named {@code paimon-gov-*} (a governed write's spill scope) or
 *     {@code paimon-io-*} (Paimon's own spill directory) under the engine's temp directories
 * @param memoryBack whether the engine's managed memory was all back: Flink's slot memory managers
 *     when the job was cancelled, Spark's task memory after the writes' completion listeners ran
 * @param dataFiles files in the table's bucket directories (uncommitted data files nobody removed)
 *
 * <p>Immutable.
 */
public record Leftovers(boolean snapshot, long spillScopes, boolean memoryBack, long dataFiles) {

    /** Nothing left: no snapshot, no spill scope, all memory back, no data file. */
    public boolean none() {
        return !snapshot && spillScopes == 0 && memoryBack && dataFiles == 0;
    }

    /** Looks at {@code table} and the spill roots under {@code tempDirs}; {@code memoryBack} comes from the engine. */
    static Leftovers look(FileStoreTable table, Path tempDirs, boolean memoryBack) {
        return new Leftovers(
                table.snapshotManager().latestSnapshotId() != null,
                spillScopes(tempDirs),
                memoryBack,
                dataFiles(Path.of(table.location().toUri())));
    }

    /** Spill scopes (governed) and spill directories (Paimon's) anywhere under {@code root}. */
    static long spillScopes(Path root) {
        return count(root, p -> Files.isDirectory(p)
                && (p.getFileName().toString().startsWith("paimon-gov-") || p.getFileName().toString().startsWith("paimon-io-")));
    }

    private static long dataFiles(Path tableDir) {
        return count(tableDir, p -> Files.isRegularFile(p)
                && p.getParent().getFileName().toString().startsWith("bucket-"));
    }

    private static long count(Path root, java.util.function.Predicate<Path> which) {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(which).count();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look under " + root, e);
        }
    }
}
