package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.ConcurrentWriterException;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two governed writes open on one table at once, each committing its own rows: into the same
 * bucket (fixed buckets) or partition (dynamic buckets) the second to commit is refused with
 * {@link ConcurrentWriterException}, publishes nothing and leaves no file; the table then equals
 * the first write's rows (the model: the rows the test wrote, not what the write reports). Writes
 * of different partitions, writes one after the other, and append tables are not refused.
 */
class ConcurrentWritersTest {

    @TempDir Path dir;

    @Test
    void theSecondWriterOfABucketIsRefusedAndPublishesNothing() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "1"), true);
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (GovernedTableWrite first = open(table); GovernedTableWrite second = open(table)) {
            write(first, 0, 0, 500, "first", model);
            write(second, 0, 250, 500, "second", null);
            first.prepareCommit().commit();
            PreparedCommit late = second.prepareCommit();

            ConcurrentWriterException e = catchThrowableOfType(late::commit, ConcurrentWriterException.class);

            assertThat(e).as("the second commit is refused").isNotNull();
            assertThat(e.table()).isEqualTo("db.t");
            assertThat(e.snapshot()).isEqualTo(1);
            assertThat(e.overlap()).containsExactly("p=0 bucket 0");
            assertThat(e.getMessage()).contains("committed snapshot 1 into buckets of db.t")
                    .contains("p=0 bucket 0").contains("was not published");
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(table.snapshotManager().latestSnapshotId()).isEqualTo(1L);
        assertThat(TableFiles.unreferenced(table)).as("files of the refused commit").isEmpty();
    }

    @Test
    void writersOfOneDynamicBucketPartitionConflictToo() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "d", Map.of(), true);
        try (GovernedTableWrite first = open(table); GovernedTableWrite second = open(table)) {
            write(first, 1, 0, 100, "first", null);
            write(second, 1, 1000, 100, "second", null);
            first.prepareCommit().commit();
            PreparedCommit late = second.prepareCommit();

            ConcurrentWriterException e = catchThrowableOfType(late::commit, ConcurrentWriterException.class);

            assertThat(e).isNotNull();
            assertThat(e.overlap()).containsExactly("p=1");
            assertThat(e.getMessage()).contains("into partitions of db.d");
        }
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    @Test
    void writersOfDifferentPartitionsOrOneAfterTheOtherOrOfAnAppendTableAreNotRefused() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "1"), true);
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (GovernedTableWrite first = open(table); GovernedTableWrite second = open(table)) {
            write(first, 0, 0, 300, "first", model);
            write(second, 1, 0, 300, "second", model);
            first.prepareCommit().commit();
            second.prepareCommit().commit();
        }
        try (GovernedTableWrite third = open(table)) {
            write(third, 0, 100, 300, "third", model);
            third.prepareCommit().commit();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);

        FileStoreTable append = TestTables.createTable(dir.resolve("wh"), "a", Map.of(), false);
        try (GovernedTableWrite first = open(append); GovernedTableWrite second = open(append)) {
            write(first, 0, 0, 100, "first", null);
            write(second, 0, 0, 100, "second", null);
            first.prepareCommit().commit();
            second.prepareCommit().commit();
        }
        assertThat(append.snapshotManager().latestSnapshotId()).isEqualTo(2L);
    }

    private static GovernedTableWrite open(FileStoreTable table) {
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "8m",
                GovernanceOptions.ORPHANS_OLDER_THAN, "off"));
        return GovernedTableWrite.batch(table,
                ResourceContext.open("concurrent", new HeapGovernanceProvider(), options, EngineEnvironment.standalone()));
    }

    /** Writes keys {@code first .. first + rows - 1} of partition {@code p}; puts them in {@code model} when given. */
    private static void write(GovernedTableWrite write, int p, int first, int rows, String who,
            Map<List<Integer>, String> model) throws Exception {
        for (int k = first; k < first + rows; k++) {
            InternalRow row = GenericRow.of(p, k, BinaryString.fromString(who + "#" + k));
            write.write(row);
            if (model != null) {
                TestTables.apply(model, row);
            }
        }
    }
}
