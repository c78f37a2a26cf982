package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.format.parquet.ParquetUtil;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.shade.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table written by plain Paimon with row groups far larger than the governed write's own
 * ({@code file.block-size} 64 MB against the budget / 32 the governed write plans), then compacted
 * by a governed write: the compaction task is charged the row groups its readers hold, as the
 * files' own Parquet footers give them, before it opens a reader; and a task whose row groups
 * cannot fit in the budget fails typed, naming the file, and loses nothing. The footers are read
 * here with Parquet's reader, apart from the runtime.
 */
class HeapForeignRowGroupsTest {

    /** Plain commits of overlapping keys: one level-0 file each, one sorted run each. */
    private static final int PLAIN_COMMITS = 3;
    /** Rows per plain commit, of {@link #VALUE_BYTES}: a file of one row group of about 2.5 MB. */
    private static final int ROWS = 4_000;
    private static final int VALUE_BYTES = 1_000;

    @TempDir Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aTaskIsChargedTheRowGroupsItsReadersHold() throws Exception {
        Map<List<Integer>, String> model = TestTables.emptyModel();
        FileStoreTable table = plainBacklog(model);
        long footers = 0;
        for (Path file : TestTables.dataFiles(table)) {
            footers += largestRowGroup(file);
        }
        SlowCompactions hooks = new SlowCompactions();
        ResourceContext context = hooks.open(dir.resolve("spill"), "16m");
        AtomicLong largestCharge = new AtomicLong();
        hooks.hook(output -> {
            for (ResourceExhaustedException.Holder h : context.holders()) {
                if (h.name().equals("compaction task")) {
                    largestCharge.accumulateAndGet(h.bytes(), Math::max);
                }
            }
        });
        long roomKept;
        try (context; GovernedTableWrite write = GovernedTableWrite.batch(hooks.table(table), context)) {
            roomKept = write.footprint().compactionBytes();
            GenericRow row = GenericRow.of(0, 1, BinaryString.fromString("governed"));
            write.write(row);
            TestTables.apply(model, row);
            assertThat(write.compact(BinaryRow.singleColumn(0), 0, true)).isTrue();
            write.prepareCommit().commit();
            assertThat(write.metrics().peakReservedBytes()).isLessThanOrEqualTo(16 << 20);
        }
        assertThat(footers).as("the plain files' row groups, larger than the room a task of the write's own files needs")
                .isGreaterThan(roomKept);
        assertThat(largestCharge.get()).as("the task's charge, against the sum of the row groups its %d readers hold at once",
                PLAIN_COMMITS).isGreaterThanOrEqualTo(footers);
        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aTaskWhoseRowGroupsExceedTheBudgetFailsTypedNamingTheFile() throws Exception {
        Map<List<Integer>, String> model = TestTables.emptyModel();
        FileStoreTable table = plainBacklog(model);
        Path largest = null;
        long largestBytes = 0;
        for (Path file : TestTables.dataFiles(table)) {
            long bytes = largestRowGroup(file);
            if (bytes > largestBytes) {
                largest = file;
                largestBytes = bytes;
            }
        }
        SlowCompactions hooks = new SlowCompactions();
        ResourceContext context = hooks.open(dir.resolve("spill"), "4m");
        Throwable failure;
        try (context; GovernedTableWrite write = GovernedTableWrite.batch(hooks.table(table), context)) {
            write.write(GenericRow.of(0, 1, BinaryString.fromString("governed")));
            failure = catchThrowable(() -> {
                write.compact(BinaryRow.singleColumn(0), 0, true);
                write.prepareCommit().commit();
            });
        }
        ResourceExhaustedException typed = typedCause(failure);
        assertThat(typed).as("the failure: %s", failure).isNotNull();
        assertThat(typed.resource()).isEqualTo(ResourceExhaustedException.Resource.MEMORY);
        assertThat(typed.getMessage()).contains("compaction task (its readers hold row groups of up to ")
                .contains(largest.getFileName().toString())
                .contains("file.block-size")
                .contains("governance.memory.budget");
        assertThat(TestTables.read(table)).as("nothing lost, nothing of the failed write visible").isEqualTo(model);
        assertThat(context.snapshot().reservedBytes()).isZero();
    }

    /**
     * A deletion-vector table whose one file plain Paimon compacted to the top level with a 2.4 MB
     * row group: a governed compaction of new rows for its keys rewrites only level 0, and looks
     * each key up in the top file, building a lookup file from it first (a whole row group read).
     * The task is charged that row group although the file is no input of it.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLookupTaskIsChargedTheRowGroupOfTheUpperFileItLooksInto() throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put("bucket", "1");
        options.put("file.format", "parquet");
        options.put("deletion-vectors.enabled", "true");
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options, true);
        Map<List<Integer>, String> model = TestTables.emptyModel();
        Random random = new Random(13);
        BatchWriteBuilder builder = table.copy(Map.of("file.block-size", "64 mb")).newBatchWriteBuilder();
        try (IOManager io = IOManager.create(Files.createDirectories(dir.resolve("plain-io")).toString());
                BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(io);
            for (int k = 0; k < ROWS; k++) {
                GenericRow row = GenericRow.of(0, k, BinaryString.fromString(TestTables.value(random, "plain", VALUE_BYTES)));
                write.write(row);
                TestTables.apply(model, row);
            }
            write.compact(BinaryRow.singleColumn(0), 0, true);
            commit.commit(write.prepareCommit());
        }
        List<Path> top = TestTables.dataFiles(table);
        assertThat(top).hasSize(1);
        long topRowGroup = largestRowGroup(top.get(0));

        SlowCompactions hooks = new SlowCompactions();
        ResourceContext context = hooks.open(dir.resolve("spill"), "16m");
        AtomicLong largestCharge = new AtomicLong();
        hooks.hook(output -> {
            for (ResourceExhaustedException.Holder h : context.holders()) {
                if (h.name().equals("compaction task")) {
                    largestCharge.accumulateAndGet(h.bytes(), Math::max);
                }
            }
        });
        try (context; GovernedTableWrite write = GovernedTableWrite.stream(hooks.table(table), "lookup-test", context)) {
            for (int k = 0; k < 100; k++) {
                GenericRow row = GenericRow.of(0, k, BinaryString.fromString("governed-" + k));
                write.write(row);
                TestTables.apply(model, row);
            }
            write.prepareCommit(true, 1).commit();
        }
        assertThat(Files.exists(top.get(0))).as("the top file was looked into, not rewritten").isTrue();
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(largestCharge.get()).as("the lookup task's charge, against the top file's row group (%d B)", topRowGroup)
                .isGreaterThanOrEqualTo(topRowGroup);
    }

    /**
     * {@value #PLAIN_COMMITS} commits of plain Paimon (write-only, so none compacts) of the same
     * {@value #ROWS} keys in bucket 0, with 64 MB row groups: each file is one row group.
     */
    private FileStoreTable plainBacklog(Map<List<Integer>, String> model) throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put("bucket", "1");
        options.put("file.format", "parquet");
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options, true);
        // The plain write's own options, not the table's: the governed write plans its own row groups.
        FileStoreTable writeOnly = table.copy(Map.of("write-only", "true", "file.block-size", "64 mb"));
        Random random = new Random(11);
        for (int c = 0; c < PLAIN_COMMITS; c++) {
            BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
                for (int k = 0; k < ROWS; k++) {
                    GenericRow row = GenericRow.of(0, k, BinaryString.fromString(TestTables.value(random, "c" + c, VALUE_BYTES)));
                    write.write(row);
                    TestTables.apply(model, row);
                }
                commit.commit(write.prepareCommit());
            }
        }
        assertThat(TestTables.dataFiles(table)).hasSize(PLAIN_COMMITS);
        return table;
    }

    /** The largest row group of a Parquet file, compressed bytes, from its footer. */
    private static long largestRowGroup(Path file) throws Exception {
        long most = 0;
        try (ParquetFileReader reader = ParquetUtil.getParquetReader(
                LocalFileIO.create(), new org.apache.paimon.fs.Path(file.toUri()), Files.size(file), new Options())) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                most = Math.max(most, block.getCompressedSize());
            }
        }
        return most;
    }

    private static ResourceExhaustedException typedCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ResourceExhaustedException r) {
                return r;
            }
        }
        return null;
    }
}
