package io.paimongov.runtime.write;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.mergetree.Levels;
import org.apache.paimon.mergetree.LookupLevels;
import org.apache.paimon.mergetree.compact.LookupMergeTreeCompactRewriter;
import org.apache.paimon.shade.caffeine2.com.github.benmanes.caffeine.cache.Cache;

/**
 * The data files a lookup compaction task (deletion vectors, the lookup changelog producer,
 * first-row, {@code force-lookup}) may read besides its input: to look a key up in a file of an
 * upper level, Paimon's {@code LookupLevels} first builds a local lookup file from it, reading the
 * whole data file on the task's thread, one file at a time, a row group at a time. Those reads hold
 * a row group of a file the task does not rewrite: in {@code bench lag}, whose upper levels plain
 * Paimon wrote with 128 MB row groups, they were the heap the accounting missed. A file whose lookup
 * file Paimon holds already is not read again.
 *
 * <p>Reads private fields of Paimon 1.4 ({@code LookupMergeTreeCompactRewriter.lookupLevels}, {@code
 * LookupLevels.levels}, {@code .lookupFileCache}); without them it finds no files. Stateless;
 * thread-safe.
 */
final class LookupFileReads {

    private static final Field LOOKUP_LEVELS = field(LookupMergeTreeCompactRewriter.class, "lookupLevels");
    private static final Field LEVELS = field(LookupLevels.class, "levels");
    private static final Field LOOKUP_FILES = field(LookupLevels.class, "lookupFileCache");

    private LookupFileReads() {}

    /**
     * The largest {@code rowGroup} over the files above level 0 that {@code rewriter} may build
     * lookup files from while it rewrites {@code inputs}: 0 for a rewriter that looks nothing up.
     */
    static long largest(Object rewriter, Set<String> inputs, ToLongFunction<DataFileMeta> rowGroup) {
        if (!(rewriter instanceof LookupMergeTreeCompactRewriter) || LOOKUP_LEVELS == null || LEVELS == null) {
            return 0;
        }
        List<DataFileMeta> files;
        Cache<?, ?> built;
        try {
            Object lookupLevels = LOOKUP_LEVELS.get(rewriter);
            if (lookupLevels == null) {
                return 0;
            }
            files = ((Levels) LEVELS.get(lookupLevels)).allFiles();
            built = LOOKUP_FILES == null ? null : (Cache<?, ?>) LOOKUP_FILES.get(lookupLevels);
        } catch (IllegalAccessException | RuntimeException e) {
            return 0;
        }
        long most = 0;
        for (DataFileMeta file : files) {
            if (file.level() > 0 && !inputs.contains(file.fileName())
                    && (built == null || built.getIfPresent(file.fileName()) == null)) {
                most = Math.max(most, rowGroup.applyAsLong(file));
            }
        }
        return most;
    }

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
