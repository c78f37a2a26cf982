package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.TestAllocators;
import io.paimongov.spi.ResourceExhaustedException;
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
import org.apache.paimon.format.parquet.ParquetUtil;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.mergetree.compact.MergeTreeCompactRewriter;
import org.apache.paimon.mergetree.compact.MergeTreeCompactTask;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A merge-tree compaction task is charged for the files it will read: Paimon merges the sorted runs
 * of one key-range section at a time, one reader per run, each holding a row group of the file it
 * reads. Files whose keys overlap are one section of as many runs; files with disjoint keys are as
 * many sections of one run. The files are real level-0 files of a real table, each flush writing
 * its own keys; their row groups come from their Parquet footers, read here.
 */
class CompactionTaskMemoryTest {

    private static final long BUDGET = 64 << 20;
    private static final int PAGE = 64 << 10;

    @TempDir Path dir;

    private final MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(4096, 1 << 20));

    @Test
    void overlappingFilesAreReadAtOnceAndDisjointOnesOneAfterAnother() throws Exception {
        FileStoreTable table = table();
        WriteFootprint footprint = WriteFootprint.plan(table, BUDGET, PAGE);
        CompactionTaskMemory memory = new CompactionTaskMemory(footprint, budget, BUDGET);

        List<DataFileMeta> overlapping = flushes(table, 0, 0, 0);
        List<DataFileMeta> disjoint = flushes(table, 0, 1_000, 2_000);
        long reader = MeasuredFootprints.get().bytes("pk", "parquet", "reader", PAGE);
        long all = 0;
        long largest = 0;
        for (DataFileMeta f : overlapping) {
            all += reader + largestRowGroup(table, f);
        }
        for (DataFileMeta f : disjoint) {
            largest = Math.max(largest, reader + largestRowGroup(table, f));
        }

        assertThat(memory.applyAsLong(task(table, overlapping))).isEqualTo(footprint.compactionOutputBytes() + all);
        assertThat(memory.applyAsLong(task(table, disjoint))).isEqualTo(footprint.compactionOutputBytes() + largest);
        assertThat(memory.applyAsLong(task(table, disjoint))).isLessThan(memory.applyAsLong(task(table, overlapping)));
        assertThat(memory.applyAsLong(task(table, overlapping))).isLessThan(footprint.compactionBytes());
        // A task it cannot see into is charged the most a task of the write's own files may need.
        assertThat(memory.applyAsLong((Runnable) () -> {})).isEqualTo(footprint.compactionBytes());
    }

    @Test
    void aTaskNeedingMoreThanTheRoomFailsTypedNamingTheLargestFile() throws Exception {
        FileStoreTable table = table();
        WriteFootprint footprint = WriteFootprint.plan(table, BUDGET, PAGE);
        List<DataFileMeta> files = flushes(table, 0, 0, 0);
        MergeTreeCompactTask task = task(table, files);
        long need = new CompactionTaskMemory(footprint, budget, BUDGET).applyAsLong(task);
        DataFileMeta largest = files.get(0);
        for (DataFileMeta f : files) {
            if (largestRowGroup(table, f) > largestRowGroup(table, largest)) {
                largest = f;
            }
        }

        CompactionTaskMemory tight = new CompactionTaskMemory(footprint, budget, need - 1);
        assertThat(new CompactionTaskMemory(footprint, budget, need).applyAsLong(task)).isEqualTo(need);
        assertThatThrownBy(() -> tight.applyAsLong(task))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining("compaction task (its readers hold row groups of up to ")
                .hasMessageContaining(largest.fileName())
                .hasMessageContaining("file.block-size");
    }

    private static long largestRowGroup(FileStoreTable table, DataFileMeta file) throws Exception {
        org.apache.paimon.fs.Path path = table.store().pathFactory().createDataFilePathFactory(
                BinaryRow.EMPTY_ROW, 0).toPath(file);
        long most = 0;
        try (ParquetFileReader reader = ParquetUtil.getParquetReader(table.fileIO(), path, file.fileSize(), new Options())) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                most = Math.max(most, block.getCompressedSize());
            }
        }
        return most;
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

    /** A task as Paimon builds one, whose rewriter reads bucket 0 through the table's own reader factory. */
    private static MergeTreeCompactTask task(FileStoreTable table, List<DataFileMeta> files) {
        KeyValueFileStore store = (KeyValueFileStore) table.store();
        MergeTreeCompactRewriter rewriter = new MergeTreeCompactRewriter(
                store.newReaderFactoryBuilder().build(BinaryRow.EMPTY_ROW, 0, DeletionVector.emptyFactory()),
                null, store.newKeyComparator(), null, null, null);
        return new MergeTreeCompactTask(store.newKeyComparator(), 0, rewriter,
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
