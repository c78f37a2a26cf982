package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deletion-vector table with {@code lookup-wait} on (Paimon's default) waits for compaction at
 * every prepareCommit, also when the caller asks it not to: Paimon then writes the bucket's
 * deletion-vector index at prepareCommit from the live deletion vectors, and a compaction running
 * at that moment has already marked rows deleted whose replacements it has not yet handed back.
 *
 * <p>Deterministic: the test makes Paimon collect one compaction's result and start the next one
 * ({@link GovernedTableWrite#compact} twice), waits until that next task has marked its first key
 * and sleeps before writing its output file ({@link SlowCompactions}), then prepares without asking
 * to wait and commits. Expected: the fold of the input (model {@link KeyHistory#fold}). Were the
 * caller's {@code false} obeyed, the commit would carry a deletion vector for key 0's visible row
 * while its newer row sits in level 0, which a deletion-vector read skips: key 0 would vanish.
 */
class LookupWaitTest {

    private static final int KEYS = 50;

    @TempDir Path dir;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLookupWaitTableWaitsAtEveryPrepareCommitSoItsDeletionVectorsMatchItsFiles() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t",
                Map.of("bucket", "1", "file.format", "parquet", "deletion-vectors.enabled", "true"), true);
        SlowCompactions slow = new SlowCompactions();
        CountDownLatch writingOutput = new CountDownLatch(2);
        slow.hook(output -> {
            if (output) {
                writingOutput.countDown();
            }
        });
        ResourceContext context = slow.open(dir.resolve("spill"), "64m");
        KeyHistory model = new KeyHistory();
        BinaryRow partition = BinaryRow.singleColumn(0);
        try (GovernedTableWrite write = GovernedTableWrite.stream(slow.table(table), "lookup-wait-test", context)) {
            round(write, model, "a", -1);
            write.prepareCommit(false, 1).commit();
            assertThat(TestTables.read(table)).isEqualTo(model.fold());

            slow.delayOutput(1_500);
            round(write, model, "b", KEYS - 1);
            assertThat(write.compact(partition, 0, false)).isTrue(); // task 1 on "b"
            round(write, model, "c", KEYS - 2);
            // Waits for task 1 (Paimon collects its result, deletion vectors lazily), starts task 2 on "c".
            assertThat(write.compact(partition, 0, false)).isTrue();
            assertThat(writingOutput.await(20, TimeUnit.SECONDS)).as("task 2 is writing its output").isTrue();

            write.prepareCommit(false, 2).commit();
            assertThat(TestTables.read(table)).as("the table after a prepareCommit(false) during task 2").isEqualTo(model.fold());
        }
        assertThat(context.snapshot().reservedBytes()).isZero();
    }

    /** Every key with a value of this round, and a delete of {@code delete} (none for -1), so compaction rewrites. */
    private static void round(GovernedTableWrite write, KeyHistory model, String round, int delete) throws Exception {
        for (int k = 0; k < KEYS; k++) {
            InternalRow row = k == delete
                    ? GenericRow.ofKind(RowKind.DELETE, 0, k, null)
                    : GenericRow.of(0, k, BinaryString.fromString(round + "-" + k));
            write.write(row);
            model.apply(row);
        }
    }
}
