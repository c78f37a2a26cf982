package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.compact.CompactUnit;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.mergetree.compact.MergeTreeCompactTask;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A merge-tree compaction task is charged for the files it will read: Paimon merges the sorted runs
 * of one key-range section at a time, one reader per run. Files whose keys overlap are one section
 * of as many runs; files with disjoint keys are as many sections of one run. The files are real
 * level-0 files of a real table, each flush writing its own keys.
 */
class CompactionTaskMemoryTest {

    private static final long BUDGET = 64 << 20;
    private static final int PAGE = 64 << 10;

    @TempDir Path dir;

    @Test
    void overlappingFilesAreReadAtOnceAndDisjointOnesOneAfterAnother() throws Exception {
        FileStoreTable table = table();
        WriteFootprint footprint = WriteFootprint.plan(table, BUDGET, PAGE);
        CompactionTaskMemory memory = new CompactionTaskMemory(footprint);

        List<DataFileMeta> overlapping = flushes(table, 0, 0, 0);
        List<DataFileMeta> disjoint = flushes(table, 0, 1_000, 2_000);
        long reader = MeasuredFootprints.get().bytes("pk", "parquet", "reader", PAGE);
        // Small files: a reader holds at most its file besides its fixed bytes.
        long all = 0;
        long largest = 0;
        for (DataFileMeta f : overlapping) {
            assertThat(f.fileSize()).isLessThan(footprint.formatBufferBytes());
            all += reader + f.fileSize();
        }
        for (DataFileMeta f : disjoint) {
            largest = Math.max(largest, reader + f.fileSize());
        }

        assertThat(memory.applyAsLong(task(table, overlapping))).isEqualTo(footprint.compactionOutputBytes() + all);
        assertThat(memory.applyAsLong(task(table, disjoint))).isEqualTo(footprint.compactionOutputBytes() + largest);
        assertThat(memory.applyAsLong(task(table, disjoint))).isLessThan(memory.applyAsLong(task(table, overlapping)));
        assertThat(memory.applyAsLong(task(table, overlapping))).isLessThan(footprint.compactionBytes());
        // A task it cannot see into is charged the most a task may need.
        assertThat(memory.applyAsLong((Runnable) () -> {})).isEqualTo(footprint.compactionBytes());
    }

    /** Three level-0 files of bucket 0, the i-th holding keys {@code firstKeys[i]} to {@code firstKeys[i] + 99}. */
    private static List<DataFileMeta> flushes(FileStoreTable table, int... firstKeys) throws Exception {
        List<DataFileMeta> files = new ArrayList<>();
        try (StreamTableWrite write = table.newStreamWriteBuilder().newWrite()) {
            long commit = 0;
            for (int first : firstKeys) {
                for (int k = first; k < first + 100; k++) {
                    write.write(GenericRow.of(k, BinaryString.fromString("value-" + k)));
                }
                for (CommitMessage m : write.prepareCommit(false, commit++)) {
                    files.addAll(((CommitMessageImpl) m).newFilesIncrement().newFiles());
                }
            }
        }
        assertThat(files).hasSize(firstKeys.length);
        return files;
    }

    private static MergeTreeCompactTask task(FileStoreTable table, List<DataFileMeta> files) {
        return new MergeTreeCompactTask(((KeyValueFileStore) table.store()).newKeyComparator(), 0, null,
                CompactUnit.fromFiles(1, files, false), false, 5, null, null, null, false);
    }

    private FileStoreTable table() throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(dir.toUri().toString())))) {
            catalog.createDatabase("db", true);
            Identifier id = Identifier.create("db", "t");
            catalog.createTable(id, Schema.newBuilder()
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .primaryKey("k")
                    .options(Map.of("bucket", "1", "file.format", "parquet", "write-only", "true"))
                    .build(), true);
            return (FileStoreTable) catalog.getTable(id);
        }
    }
}
