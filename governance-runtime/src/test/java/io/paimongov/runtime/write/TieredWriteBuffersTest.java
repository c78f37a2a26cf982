package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.internal.memory.MemoryBudget;
import io.paimongov.runtime.internal.memory.TestAllocators;
import io.paimongov.runtime.internal.spill.GovernedIOManager;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.internal.spill.TieredSortBuffer;
import io.paimongov.spi.EngineResources.SpillLocations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.memory.HeapMemorySegmentPool;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Primary-key writers of the Paimon on the class path, given tiered write buffers: a write far
 * larger than its pool spills many runs at fan-in 2, and the table read back is the model (the
 * last row of a key wins, or with a sequence field the row with the largest sequence value), so
 * the tiered buffer keeps Paimon's key order. The spilled runs are written as one data file per
 * bucket at prepareCommit, which shows the rows were spilled rather than flushed to level 0.
 */
class TieredWriteBuffersTest {

    private static final int PAGE = 4 << 10;
    private static final int POOL_PAGES = 24;
    private static final int BUCKETS = 2;
    private static final int KEYS = 3_000;
    private static final int ROWS = 20_000;

    @TempDir Path dir;

    @Test
    void aWriteFarLargerThanItsPoolSpillsThroughTieredBuffersAndTheLastRowOfAKeyWins() throws Exception {
        FileStoreTable table = table(false);
        Map<Integer, String> model = new TreeMap<>();
        Random random = new Random(7);
        Result r = write(table, (write, n) -> {
            int k = random.nextInt(KEYS);
            String v = "v" + n + "-" + "x".repeat(random.nextInt(40));
            write.write(GenericRow.of(k, 0L, BinaryString.fromString(v)));
            model.put(k, v);
        });

        assertThat(r.tiered()).as("writers given a tiered buffer").isEqualTo(BUCKETS);
        assertThat(r.spillFiles()).as("spill files, runs and merges").isGreaterThan(10);
        assertThat(r.filesPerBucket()).as("one data file per bucket: spilled, never flushed early").containsOnly(1);
        assertThat(read(table)).isEqualTo(model);
    }

    @Test
    void withASequenceFieldTheLargestSequenceWinsWhateverTheArrival() throws Exception {
        FileStoreTable table = table(true);
        Map<Integer, Long> best = new TreeMap<>();
        Map<Integer, String> model = new TreeMap<>();
        Random random = new Random(11);
        Result r = write(table, (write, n) -> {
            int k = random.nextInt(KEYS);
            long s = random.nextInt(1_000);
            String v = "v" + n + "-" + "y".repeat(random.nextInt(40));
            write.write(GenericRow.of(k, s, BinaryString.fromString(v)));
            // Ties keep the later row (the sequence number decides among equal sequence values).
            if (!best.containsKey(k) || s >= best.get(k)) {
                best.put(k, s);
                model.put(k, v);
            }
        });

        assertThat(r.tiered()).isEqualTo(BUCKETS);
        assertThat(r.spillFiles()).isGreaterThan(10);
        assertThat(read(table)).isEqualTo(model);
    }

    private interface Rows {
        void write(TableWriteImpl<?> write, int n) throws Exception;
    }

    private record Result(int tiered, long spillFiles, List<Integer> filesPerBucket) {}

    private Result write(FileStoreTable table, Rows rows) throws Exception {
        Path root = Files.createDirectories(dir.resolve("spill"));
        GovernedIOManager io =
                new GovernedIOManager(SpillScope.create(SpillLocations.of(List.of(root), Long.MAX_VALUE), "t"), Long.MAX_VALUE, () -> {});
        MemoryBudget channels = new MemoryBudget(TestAllocators.bounded(PAGE, 1 << 30));
        TieredWriteBuffers factory =
                new TieredWriteBuffers(new HeapMemorySegmentPool((long) POOL_PAGES * PAGE, PAGE), io, channels.newReservation("channels"),
                        TieredSortBuffer.SMALL_BLOCK, WriteFootprint.SPILL_RUN_CODEC, () -> {});
        List<CommitMessage> messages;
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            write.withIOManager(io).withMemoryPoolFactory(factory);
            for (int n = 0; n < ROWS; n++) {
                rows.write(write, n);
            }
            messages = write.prepareCommit();
        }
        List<Integer> files = new ArrayList<>();
        for (CommitMessage m : messages) {
            List<DataFileMeta> added = ((CommitMessageImpl) m).newFilesIncrement().newFiles();
            files.add(added.size());
        }
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        long spillFiles = io.spillFiles();
        io.close();
        return new Result(factory.tiered(), spillFiles, files);
    }

    private FileStoreTable table(boolean sequenceField) throws Exception {
        Schema.Builder schema = Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("s", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("k")
                .option("bucket", Integer.toString(BUCKETS))
                .option("page-size", Integer.toString(PAGE))
                .option("write-buffer-spillable", "true")
                .option("local-sort.max-num-file-handles", "2");
        if (sequenceField) {
            schema.option("sequence.field", "s");
        }
        return KeyValueTables.create(dir.resolve("w"), schema.build());
    }

    private static Map<Integer, String> read(FileStoreTable table) throws Exception {
        return KeyValueTables.read(table, 2);
    }
}
