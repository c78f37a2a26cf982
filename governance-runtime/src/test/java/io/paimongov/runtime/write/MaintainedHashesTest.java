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
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key hashes of Paimon's dynamic-bucket writers, charged for a write whose rows come with their
 * buckets: a real table whose {@link #BUCKETS} buckets hold {@link #KEYS_PER_BUCKET} keys each in
 * their index files, and Paimon's own write of one row per bucket, which makes each writer read its
 * bucket's whole index. The model is the input: after a row of the keys already in the table reached
 * {@code n} buckets, the writers hold {@code n * KEYS_PER_BUCKET} hashes.
 */
class MaintainedHashesTest {

    private static final int BUCKETS = 10;
    private static final int KEYS_PER_BUCKET = 1_000;
    private static final long BYTES_PER_KEY = 27;
    private static final int PAGE = 4096;

    @TempDir Path dir;

    @Test
    void aBucketsIndexIsPaidForBeforeItsWriterReadsIt() throws Exception {
        FileStoreTable table = tableWithIndexes();
        MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(PAGE, 64L << 20));
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            AbstractFileStoreWrite<?> files = (AbstractFileStoreWrite<?>) write.getWrite();
            MaintainedHashes hashes = new MaintainedHashes(budget, BYTES_PER_KEY,
                    () -> PaimonWriters.maintainedHashes(files, List.of()), table.store().newIndexFileHandler());
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                hashes.beforeRow(BinaryRow.EMPTY_ROW, bucket);
                long heldAfterRow = (long) (bucket + 1) * KEYS_PER_BUCKET;
                assertThat(hashes.chargedBytes()).as("before the row to bucket %s", bucket)
                        .isGreaterThanOrEqualTo(heldAfterRow * BYTES_PER_KEY);
                write.write(firstRowOf(bucket), bucket);
                assertThat(PaimonWriters.maintainedHashes(files, List.of()).hashes()).isEqualTo(heldAfterRow);
            }
            hashes.recount();
            long held = (long) BUCKETS * KEYS_PER_BUCKET;
            assertThat(hashes.chargedBytes()).as("counted: what the writers hold, and the rows ahead")
                    .isEqualTo((held + MaintainedHashes.AHEAD) * BYTES_PER_KEY);
        }
        assertThat(budget.reservedBytes()).isEqualTo((BUCKETS * KEYS_PER_BUCKET + MaintainedHashes.AHEAD) * BYTES_PER_KEY);
    }

    @Test
    void aBucketWhoseWriterIsNotOpenYetStaysChargedAcrossACount() throws Exception {
        FileStoreTable table = tableWithIndexes();
        MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(PAGE, 64L << 20));
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            AbstractFileStoreWrite<?> files = (AbstractFileStoreWrite<?>) write.getWrite();
            MaintainedHashes hashes = new MaintainedHashes(budget, BYTES_PER_KEY,
                    () -> PaimonWriters.maintainedHashes(files, List.of()), table.store().newIndexFileHandler());
            // The row is held back (as the shared sort holds rows) while the hashes are counted.
            hashes.beforeRow(BinaryRow.EMPTY_ROW, 3);
            hashes.recount();
            assertThat(hashes.chargedBytes()).isEqualTo((KEYS_PER_BUCKET + MaintainedHashes.AHEAD) * BYTES_PER_KEY);
            write.write(firstRowOf(3), 3);
            hashes.recount();
            assertThat(hashes.chargedBytes()).as("now the writer's, counted once")
                    .isEqualTo((KEYS_PER_BUCKET + MaintainedHashes.AHEAD) * BYTES_PER_KEY);
        }
    }

    @Test
    void anOverwriteRestoresNothingAndIsChargedNothingForIt() throws Exception {
        FileStoreTable table = tableWithIndexes();
        MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(PAGE, 64L << 20));
        MaintainedHashes hashes = new MaintainedHashes(budget, BYTES_PER_KEY,
                () -> new PaimonWriters.HeldHashes(0, Map.of()), null);
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            hashes.beforeRow(BinaryRow.EMPTY_ROW, bucket);
        }
        assertThat(hashes.chargedBytes()).isEqualTo(MaintainedHashes.AHEAD * BYTES_PER_KEY);
    }

    @Test
    void anIndexTheBudgetCannotHoldFailsNamingTheKeys() throws Exception {
        FileStoreTable table = tableWithIndexes();
        long room = (MaintainedHashes.AHEAD + KEYS_PER_BUCKET * 3L) * BYTES_PER_KEY;
        MemoryBudget budget = new MemoryBudget(TestAllocators.bounded(PAGE, (room / PAGE + 1) * PAGE));
        MaintainedHashes hashes = new MaintainedHashes(budget, BYTES_PER_KEY,
                () -> new PaimonWriters.HeldHashes(0, Map.of()), table.store().newIndexFileHandler());
        for (int bucket = 0; bucket < 3; bucket++) {
            hashes.beforeRow(BinaryRow.EMPTY_ROW, bucket);
        }
        assertThatThrownBy(() -> hashes.beforeRow(BinaryRow.EMPTY_ROW, 3))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining(MaintainedHashes.CONSUMER);
    }

    /** Bucket {@code b} holds keys {@code b * KEYS_PER_BUCKET ...}: written by Paimon's own write with the buckets given. */
    private FileStoreTable tableWithIndexes() throws Exception {
        FileStoreTable table = KeyValueTables.create(dir, KeyValueTables.oneBucketKeyValue().option("bucket", "-1").build());
        List<CommitMessage> messages = new ArrayList<>();
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                for (int i = 0; i < KEYS_PER_BUCKET; i++) {
                    write.write(row(bucket * KEYS_PER_BUCKET + i), bucket);
                }
            }
            messages.addAll(write.prepareCommit());
        }
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        return table;
    }

    private static GenericRow row(int key) {
        return GenericRow.of(key, BinaryString.fromString("v" + key));
    }

    /** Bucket {@code bucket}'s first key again: a key its index holds. */
    private static GenericRow firstRowOf(int bucket) {
        return row(bucket * KEYS_PER_BUCKET);
    }
}
