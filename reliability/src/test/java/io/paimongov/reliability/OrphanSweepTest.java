package io.paimongov.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.orphans.OpeningSweep.Outcome;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orphan-file sweep of an opening governed write ({@code governance.orphans.older-than}) on a
 * real primary-key table: a child JVM writes and prepares its commit and is killed with SIGKILL
 * before it commits, leaving data files no snapshot references; a write that opens with a one-day
 * margin removes none of them (they are younger), one with {@code 0s} removes exactly them and the
 * committed table is unchanged. A write of this JVM that has prepared but not committed keeps its
 * files when another write of the same table opens with {@code 0s}.
 *
 * <p>Files left behind are counted by {@link TableFiles}: the table directory walked and compared
 * with what Paimon's readers of snapshots and manifests find referenced, not by the sweep itself.
 */
@Tag("reliability")
class OrphanSweepTest {

    @TempDir Path dir;

    @Test
    void filesOfAWriteKilledBeforeItsCommitAreRemovedByTheNextWriteOnlyPastTheMargin() throws Exception {
        Path warehouse = dir.resolve("wh");
        FileStoreTable table = TestTables.primaryKeyTable(warehouse, "t", 2, "parquet");
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (GovernedTableWrite first = open(table, "0s")) {
            writeKeys(first, 0, 500, "first", model);
            first.prepareCommit().commit();
        }
        Set<String> committedFiles = TableFiles.files(table);
        assertThat(TableFiles.unreferenced(table)).as("files left by a committed write").isEmpty();

        Path marker = dir.resolve("prepared");
        Path log = dir.resolve("abandoned.log");
        Process child = ChildJvm.start(AbandonedWriter.class, log, warehouse.toString(), "t", "1000", "1000",
                marker.toString());
        ChildJvm.awaitMarker(child, marker, log, 180);
        assertThat(ChildJvm.kill(child)).as("the child was killed by SIGKILL").isTrue();
        Set<String> orphans = TableFiles.unreferenced(table);
        assertThat(TableFiles.unreferencedDataFiles(table)).as("data files the killed write left").isNotEmpty();

        try (GovernedTableWrite young = open(table, "1d")) {
            assertThat(young.orphanSweep().outcome()).isEqualTo(Outcome.CLEANED);
            assertThat(young.orphanSweep().filesRemoved()).isZero();
        }
        assertThat(TableFiles.unreferenced(table)).as("files younger than the margin stay").isEqualTo(orphans);

        try (GovernedTableWrite next = open(table, "0s")) {
            assertThat(next.orphanSweep().outcome()).isEqualTo(Outcome.CLEANED);
            assertThat(next.orphanSweep().filesRemoved()).isEqualTo(orphans.size());
            assertThat(next.orphanSweep().result().notDeleted()).isEmpty();
            assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
            assertThat(TableFiles.files(table)).as("the committed table's files").isEqualTo(committedFiles);
            assertThat(TestTables.read(table)).as("the committed table").isEqualTo(model);
            writeKeys(next, 400, 300, "next", model);
            next.prepareCommit().commit();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    @Test
    void aLiveWriteOfThisJvmKeepsItsUncommittedFilesWhenAnotherOpensWithAZeroMargin() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (GovernedTableWrite live = open(table, "off")) {
            writeKeys(live, 0, 300, "live", model);
            PreparedCommit prepared = live.prepareCommit();
            Set<String> uncommitted = TableFiles.unreferencedDataFiles(table);
            assertThat(uncommitted).as("the prepared, uncommitted files").isNotEmpty();

            try (GovernedTableWrite other = open(table, "0s")) {
                assertThat(other.orphanSweep().outcome()).isEqualTo(Outcome.SKIPPED);
                assertThat(other.orphanSweep().detail()).contains("is live in this JVM");
            }
            assertThat(TableFiles.unreferencedDataFiles(table)).isEqualTo(uncommitted);
            assertThat(uncommitted).allSatisfy(f -> assertThat(Files.exists(directory(table).resolve(f))).isTrue());
            prepared.commit();
        }
        assertThat(TestTables.read(table)).isEqualTo(model);
        try (GovernedTableWrite after = open(table, "0s")) {
            assertThat(after.orphanSweep().outcome()).as("the live write is done").isEqualTo(Outcome.CLEANED);
            assertThat(after.orphanSweep().filesRemoved()).isZero();
        }
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    private static GovernedTableWrite open(FileStoreTable table, String olderThan) {
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, "8m", GovernanceOptions.ORPHANS_OLDER_THAN, olderThan));
        ResourceContext context =
                ResourceContext.open("orphan-sweep", Allocator.HEAP.provider(), options, EngineEnvironment.standalone());
        return GovernedTableWrite.batch(table, context);
    }

    private static void writeKeys(GovernedTableWrite write, int first, int rows, String who,
            Map<List<Integer>, String> model) throws Exception {
        for (int i = 0; i < rows; i++) {
            InternalRow row = AbandonedWriter.row(first + i, who);
            write.write(row);
            TestTables.apply(model, row);
        }
    }

    private static Path directory(FileStoreTable table) {
        return Path.of(table.location().toUri().getPath());
    }
}
