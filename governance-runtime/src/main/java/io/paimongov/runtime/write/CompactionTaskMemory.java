package io.paimongov.runtime.write;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import io.paimongov.runtime.internal.formats.InputRowGroups;
import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.spi.ResourceExhaustedException;
import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataFilePathFactory;
import org.apache.paimon.io.KeyValueFileReaderFactory;
import org.apache.paimon.mergetree.SortedRun;
import org.apache.paimon.mergetree.compact.MergeTreeCompactRewriter;
import org.apache.paimon.mergetree.compact.MergeTreeCompactTask;

/**
 * The working memory of one of Paimon's compaction tasks, from the files it will read. A merge-tree
 * task reads its input section by section (Paimon's {@code MergeTreeReaders} concatenates the
 * sections lazily), and within a section one reader per sorted run, each reading the run's files
 * one after another. So the readers open at once are the runs of one section, and each holds its
 * measured fixed bytes ({@link WriteFootprint#readerBytes()}) plus one row group or stripe of the
 * file it reads: a task is charged the output writer plus, for its largest section, the sum over
 * runs of reader bytes plus the run's largest row group or stripe, read from the files' footers
 * ({@link InputRowGroups}). Whoever wrote the files decides their row groups, so a table written by
 * plain Paimon (128 MB row groups by default) is charged what its readers hold, which may be far
 * more than {@link WriteFootprint#compactionBytes()}, the room the write keeps for a task of its own
 * files. A lookup task also builds lookup files, one at a time, from upper-level files it does not
 * rewrite, and is charged one more reader of the largest row group among them ({@link
 * LookupFileReads}). Where the files' directory cannot be found the file's size is charged, which no row group
 * of it exceeds; Avro files are charged the smaller of the file and {@link
 * WriteFootprint#formatBufferBytes()}.
 *
 * <p>A task whose charge exceeds {@code roomBytes}, the most a task can ever be given (the budget
 * less the write's fixed reservations and one writer), fails before it opens a reader with a {@link
 * ResourceExhaustedException} naming the file with the largest row group; waiting would never give
 * it the memory, and running it would hold more heap than the budget.
 *
 * <p>The sections and the reader's directory are read from private fields of Paimon 1.4 ({@code
 * MergeTreeCompactTask.partitioned}, {@code .rewriter}, {@code MergeTreeCompactRewriter.readerFactory},
 * {@code KeyValueFileReaderFactory.fileIO}, {@code .pathFactory}): a task of another type, or a
 * Paimon without those fields, is charged {@link WriteFootprint#compactionBytes()}.
 *
 * <p>Thread-safe (called on compaction threads); reads footers on the calling thread.
 */
final class CompactionTaskMemory implements ToLongFunction<Object> {

    private static final Field SECTIONS = field(MergeTreeCompactTask.class, "partitioned");
    private static final Field REWRITER = field(MergeTreeCompactTask.class, "rewriter");
    private static final Field READER_FACTORY = field(MergeTreeCompactRewriter.class, "readerFactory");
    private static final Field FILE_IO = field(KeyValueFileReaderFactory.class, "fileIO");
    private static final Field PATH_FACTORY = field(KeyValueFileReaderFactory.class, "pathFactory");

    private final WriteFootprint footprint;
    private final MemoryBudget budget;
    private final long roomBytes;
    private final InputRowGroups rowGroups = new InputRowGroups();

    /**
     * @param budget the write's budget, for the numbers of the error
     * @param roomBytes the most one task can ever be given
     */
    CompactionTaskMemory(WriteFootprint footprint, MemoryBudget budget, long roomBytes) {
        this.footprint = footprint;
        this.budget = budget;
        this.roomBytes = roomBytes;
    }

    /**
     * @throws ResourceExhaustedException when the task needs more than {@code roomBytes}
     * @throws java.io.UncheckedIOException when a footer cannot be read
     */
    @Override
    public long applyAsLong(Object task) {
        if (SECTIONS == null || !(task instanceof MergeTreeCompactTask)) {
            return footprint.compactionBytes();
        }
        List<?> sections;
        try {
            sections = (List<?>) SECTIONS.get(task);
        } catch (IllegalAccessException | RuntimeException e) {
            return footprint.compactionBytes();
        }
        Object rewriter = rewriter(task);
        Files files = files(rewriter);
        Largest largest = new Largest();
        ToLongFunction<DataFileMeta> rowGroup = file -> largest.note(file, rowGroup(files, file));
        long most = 0;
        Set<String> inputs = new HashSet<>();
        for (Object section : sections) {
            long readers = 0;
            for (Object run : (List<?>) section) {
                long inRun = 0;
                for (DataFileMeta file : ((SortedRun) run).files()) {
                    inputs.add(file.fileName());
                    inRun = Math.max(inRun, rowGroup.applyAsLong(file));
                }
                readers += footprint.readerBytes() + inRun;
            }
            most = Math.max(most, readers);
        }
        long lookup = LookupFileReads.largest(rewriter, inputs, rowGroup);
        if (lookup > 0) {
            // One lookup file is built at a time, beside the merge's readers.
            most += footprint.readerBytes() + lookup;
        }
        long bytes = footprint.compactionOutputBytes() + most;
        if (bytes > roomBytes) {
            throw tooLarge(bytes, largest.file, largest.bytes);
        }
        return bytes;
    }

    private ResourceExhaustedException tooLarge(long bytes, String file, long rowGroup) {
        return new ResourceExhaustedException(
                ResourceExhaustedException.Resource.MEMORY,
                "compaction task (its readers hold row groups of up to " + Sizes.format(rowGroup) + ", in " + file + ")",
                bytes,
                budget.reservedBytes(),
                budget.capacityBytes(),
                budget.largestHolders(5),
                "a task can be given at most " + Sizes.format(roomBytes) + " beside the write's fixed reservations and one writer:"
                        + " raise '" + GovernanceOptions.MEMORY_BUDGET + "' by at least "
                        + Sizes.format(bytes - roomBytes) + ", or rewrite the table's files with smaller row groups"
                        + " ('file.block-size', 'orc.stripe.size')");
    }

    /** The largest row group or stripe of {@code file}: from its footer, else its size. */
    private long rowGroup(Files files, DataFileMeta file) {
        return files == null
                ? file.fileSize()
                : rowGroups.largest(files.fileIO, files.paths.toPath(file), file, Math.min(footprint.formatBufferBytes(), file.fileSize()));
    }

    /** The file with the largest row group seen so far, for the error. Not thread-safe: one per call. */
    private static final class Largest {
        String file;
        long bytes;

        long note(DataFileMeta meta, long rowGroup) {
            if (rowGroup > bytes) {
                bytes = rowGroup;
                file = meta.fileName();
            }
            return rowGroup;
        }
    }

    private static Object rewriter(Object task) {
        try {
            return REWRITER == null ? null : REWRITER.get(task);
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /** Where the task's reader finds its files; null when Paimon's fields are not there. */
    private static Files files(Object rewriter) {
        if (READER_FACTORY == null || FILE_IO == null || PATH_FACTORY == null || !(rewriter instanceof MergeTreeCompactRewriter)) {
            return null;
        }
        try {
            Object factory = READER_FACTORY.get(rewriter);
            if (!(factory instanceof KeyValueFileReaderFactory)) {
                return null;
            }
            return new Files((FileIO) FILE_IO.get(factory), (DataFilePathFactory) PATH_FACTORY.get(factory));
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    private record Files(FileIO fileIO, DataFilePathFactory paths) {}

    private static Field field(Class<?> owner, String name) {
        try {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
