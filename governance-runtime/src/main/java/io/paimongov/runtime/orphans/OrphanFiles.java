package io.paimongov.runtime.orphans;

import io.paimongov.runtime.tables.DamagedTableException;
import io.paimongov.runtime.tables.TableCheck;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.fs.Path;
import org.apache.paimon.operation.CleanOrphanFilesResult;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the files of one Paimon table that no snapshot references, through Paimon's own {@link
 * LocalOrphanFilesClean} (the class behind Paimon's {@code remove_orphan_files} procedure), not a
 * re-implementation of it.
 *
 * <p>What Paimon's clean covers (1.4): every file in the table's {@code manifest/} directory
 * (manifests, manifest lists, index manifests), {@code index/} (hash and deletion-vector index
 * files), {@code statistics/} and every bucket directory (data and changelog files, and their extra
 * files) that no snapshot, tag, changelog or branch references; files in {@code snapshot/} and
 * {@code changelog/} that are not snapshot or changelog files (temporary files of an interrupted
 * atomic write); then the bucket and partition directories it left empty. It only takes a file
 * whose modification time is before the cutoff, {@code now - olderThan}, computed once when the
 * clean starts: a file written after that moment is never taken, so a write that starts after the
 * cutoff is safe whatever the margin. A write that started before it and has not committed yet is
 * safe only while its files are younger than the margin: that is what the margin is for (Paimon's
 * default is one day). Directories it cannot list are skipped; a manifest it cannot read stops the
 * clean with an error rather than deleting a file that may be in use. A manifest that is missing,
 * though, Paimon takes for one a concurrent expiration removed, and the data files only it lists
 * would be deleted as unused: so the table's metadata is checked first ({@link
 * TableCheck#verifyMetadata}), and a damaged table is reported ({@link DamagedTableException}) and
 * not touched.
 *
 * <p>Paimon deletes quietly; {@link #clean} looks again for every file it reported, so a file that
 * could not be deleted (a read-only directory) is reported in {@link Result#notDeleted()} instead
 * of as removed.
 *
 * <p>Stateless; thread-safe. Paimon's clean uses a pool of up to {@code file-operation.thread-num}
 * daemon threads (default: the number of processors), shut down before {@link #clean} returns.
 */
public final class OrphanFiles {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanFiles.class);
    private static final long POOL_STOP_SECONDS = 10;

    private OrphanFiles() {}

    /**
     * What a clean of one table found, and removed unless it was a dry run.
     *
     * @param table the table's full name, {@code db.table}
     * @param dryRun whether the files were only listed
     * @param cutoffMillis files modified before this epoch millisecond were candidates
     * @param paths the orphan files, sorted
     * @param bytes their total size
     * @param notDeleted those of {@code paths} that still exist after the clean (empty for a dry run)
     */
    public record Result(String table, boolean dryRun, long cutoffMillis, List<String> paths, long bytes,
            List<String> notDeleted) {

        public Result {
            paths = List.copyOf(paths);
            notDeleted = List.copyOf(notDeleted);
        }

        /** Orphan files found. */
        public int files() {
            return paths.size();
        }

        /** Orphan files that are gone: all of them unless a dry run or a delete failed. */
        public int deleted() {
            return dryRun ? 0 : paths.size() - notDeleted.size();
        }
    }

    /**
     * Finds the orphan files of {@code table} older than {@code olderThan} and, unless {@code dryRun},
     * deletes them (and the bucket and partition directories left empty).
     *
     * @throws DamagedTableException when a snapshot, tag or changelog file, or a manifest one of them
     *     references, is missing or cannot be read ({@link TableCheck#verifyMetadata}): nothing was
     *     deleted
     * @throws IOException when Paimon's clean failed (a snapshot or manifest could not be read: then
     *     nothing after that point was deleted) or the thread was interrupted ({@link
     *     InterruptedIOException}, the interrupt flag set again)
     * @throws IllegalArgumentException for a negative {@code olderThan}
     */
    public static Result clean(FileStoreTable table, Duration olderThan, boolean dryRun) throws IOException {
        if (olderThan.isNegative()) {
            throw new IllegalArgumentException("olderThan must not be negative: " + olderThan);
        }
        // Paimon's clean reads a missing manifest as an expired one: the data files only it lists
        // would look unused and be deleted. A damaged table is reported and left alone.
        TableCheck.verifyMetadata(table);
        long cutoff = System.currentTimeMillis() - olderThan.toMillis();
        CleanOrphanFilesResult result;
        ExistingDirs clean = new ExistingDirs(table, cutoff, dryRun);
        try {
            result = clean.clean();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("the orphan-file clean of " + table.fullName()
                    + " was interrupted");
            io.initCause(e);
            throw io;
        } catch (ExecutionException | RuntimeException e) {
            throw failed(table, e);
        } finally {
            clean.shutdown();
        }
        List<Path> found = result.getDeletedFilesPath() == null ? List.of() : result.getDeletedFilesPath();
        List<String> paths = found.stream().map(Path::toString).sorted(Comparator.naturalOrder()).toList();
        List<String> notDeleted = new ArrayList<>();
        if (!dryRun) {
            for (Path p : found) {
                if (table.fileIO().exists(p)) {
                    notDeleted.add(p.toString());
                }
            }
            notDeleted.sort(Comparator.naturalOrder());
        }
        return new Result(table.fullName(), dryRun, cutoff, paths, result.getDeletedFileTotalLenInBytes(), notDeleted);
    }

    /**
     * Paimon's clean, listing only the directories that exist: it lists the table's {@code index/}
     * and {@code statistics/} directories (absent in most tables) and {@code manifest/} (absent
     * before the first commit) whether they exist or not, and logs a warning with a stack trace for
     * each absent one. And its thread pool is shut down when it is done ({@link #shutdown}).
     */
    private static final class ExistingDirs extends LocalOrphanFilesClean {

        private static final long serialVersionUID = 1L;

        ExistingDirs(FileStoreTable table, long olderThanMillis, boolean dryRun) {
            super(table, olderThanMillis, dryRun);
        }

        @Override
        protected List<Path> listPaimonFileDirs() {
            List<Path> dirs = new ArrayList<>();
            for (Path dir : super.listPaimonFileDirs()) {
                try {
                    if (fileIO.exists(dir)) {
                        dirs.add(dir);
                    }
                } catch (IOException e) {
                    dirs.add(dir);
                }
            }
            return dirs;
        }

        /**
         * Ends the clean's threads. Paimon keeps its pool in a private field and never shuts it
         * down (its idle threads end after a minute); a governed write must leave no thread behind
         * when it closes (the kit's WRITE rules check it), so the pool is reached by reflection and
         * shut down. Should a later Paimon rename the field, the threads end by themselves as before
         * and this says so in the log.
         */
        void shutdown() {
            try {
                Field field = LocalOrphanFilesClean.class.getDeclaredField("executor");
                field.setAccessible(true);
                ExecutorService pool = (ExecutorService) field.get(this);
                pool.shutdown();
                if (!pool.awaitTermination(POOL_STOP_SECONDS, TimeUnit.SECONDS)) {
                    LOG.warn("the orphan-file clean's threads did not end within {} s", POOL_STOP_SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.warn("cannot shut down the orphan-file clean's thread pool; its idle threads end within a minute", e);
            }
        }
    }

    /** The I/O error at the root of a failed clean, named with the table; else the failure as an I/O error. */
    private static IOException failed(FileStoreTable table, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException io) {
                IOException named = new IOException("the orphan-file clean of " + table.fullName() + " failed: " + io, io);
                if (t != e) {
                    named.addSuppressed(e);
                }
                return named;
            }
        }
        return new IOException("the orphan-file clean of " + table.fullName() + " failed: " + e, e);
    }
}
