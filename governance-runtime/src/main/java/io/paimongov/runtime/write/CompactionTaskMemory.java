package io.paimongov.runtime.write;

import java.lang.reflect.Field;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.mergetree.SortedRun;
import org.apache.paimon.mergetree.compact.MergeTreeCompactTask;

/**
 * The working memory of one of Paimon's compaction tasks, from the files it will read. A merge-tree
 * task reads its input section by section (Paimon's {@code MergeTreeReaders} concatenates the
 * sections lazily), and within a section one reader per sorted run, each reading the run's files
 * one after another. So the readers open at once are the runs of one section, and each holds its
 * measured fixed bytes ({@link WriteFootprint#readerBytes()}) plus at most one row group or stripe,
 * which is never larger than the file it belongs to: a task is charged the output writer plus, for
 * its largest section, the sum over runs of reader bytes plus the smaller of the format buffer and
 * the run's largest file.
 *
 * <p>The sections are read from the task's private field {@code partitioned} (Paimon 1.4): a task of
 * another type, or a Paimon without that field, is charged {@link WriteFootprint#compactionBytes()},
 * the most a task may need. The answer never exceeds that, since the write keeps room for no more.
 *
 * <p>Immutable; thread-safe (called on compaction threads).
 */
final class CompactionTaskMemory implements ToLongFunction<Object> {

    private static final Field SECTIONS = sectionsField();

    private final WriteFootprint footprint;

    CompactionTaskMemory(WriteFootprint footprint) {
        this.footprint = footprint;
    }

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
        long most = 0;
        for (Object section : sections) {
            long readers = 0;
            for (Object run : (List<?>) section) {
                long largest = 0;
                for (DataFileMeta file : ((SortedRun) run).files()) {
                    largest = Math.max(largest, file.fileSize());
                }
                readers += footprint.readerBytes() + Math.min(footprint.formatBufferBytes(), largest);
            }
            most = Math.max(most, readers);
        }
        return Math.min(footprint.compactionBytes(), footprint.compactionOutputBytes() + most);
    }

    private static Field sectionsField() {
        try {
            Field f = MergeTreeCompactTask.class.getDeclaredField("partitioned");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
