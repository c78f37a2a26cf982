package io.paimongov.runtime.write;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import io.paimongov.runtime.memory.MemoryBudget;
import io.paimongov.spi.ResourceExhaustedException;
import java.lang.reflect.Field;
import java.util.List;
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
 * files. Where the files' directory cannot be found the file's size is charged, which no row group
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
        Files files = files(task);
        long most = 0;
        String largestFile = null;
        long largestRowGroup = 0;
        for (Object section : sections) {
            long readers = 0;
            for (Object run : (List<?>) section) {
                long largest = 0;
                for (DataFileMeta file : ((SortedRun) run).files()) {
                    long rowGroup = files == null
                            ? file.fileSize()
                            : rowGroups.largest(files.fileIO, files.paths.toPath(file), file,
                                    Math.min(footprint.formatBufferBytes(), file.fileSize()));
                    largest = Math.max(largest, rowGroup);
                    if (rowGroup > largestRowGroup) {
                        largestRowGroup = rowGroup;
                        largestFile = files == null ? file.fileName() : files.paths.toPath(file).toString();
                    }
                }
                readers += footprint.readerBytes() + largest;
            }
            most = Math.max(most, readers);
        }
        long bytes = footprint.compactionOutputBytes() + most;
        if (bytes > roomBytes) {
            throw tooLarge(bytes, largestFile, largestRowGroup);
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

    /** Where the task's reader finds its files; null when Paimon's fields are not there. */
    private static Files files(Object task) {
        if (REWRITER == null || READER_FACTORY == null || FILE_IO == null || PATH_FACTORY == null) {
            return null;
        }
        try {
            Object rewriter = REWRITER.get(task);
            if (!(rewriter instanceof MergeTreeCompactRewriter)) {
                return null;
            }
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
