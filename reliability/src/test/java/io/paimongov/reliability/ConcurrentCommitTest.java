package io.paimongov.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two governed writes in two JVMs commit to the same partition and bucket of one primary-key table
 * at once. Each commit waits at a gate ({@link GatedFileIO}) with its manifests written until both
 * are there, then the test lets one through and then the other, so the second always finds the
 * snapshot id taken:
 *
 * <ul>
 *   <li>Appends only: Paimon retries the second commit and both land. The table equals both
 *       writers' rows, and the manifests of the lost attempt are gone.
 *   <li>Both compact the same file: Paimon commits each writer's new files and its compaction as
 *       two snapshots; the second writer's new files land after a retry, its compaction finds the
 *       file compacted away by the first and fails with Paimon's conflict error, which the write
 *       settles as published (its rows are in the table). The table equals both writers' rows
 *       over the setup, and the output of the failed compaction is gone with the manifests.
 * </ul>
 *
 * <p>In both, no manifest, manifest list or data file is left that no snapshot references, counted
 * by {@link TableFiles} from the directory and Paimon's manifest readers.
 */
@Tag("reliability")
class ConcurrentCommitTest {

    @TempDir Path dir;

    @Test
    void twoAppendingCommittersBothLandAndTheRetriedOneLeavesNoManifest() throws Exception {
        Path warehouse = dir.resolve("wh");
        FileStoreTable table = TestTables.createTable(warehouse, "t",
                Map.of("bucket", "1", "file.format", "parquet"), true);
        Map<List<Integer>, String> model = TestTables.emptyModel();

        String first = race(warehouse, "t", new Racer("first", 0, 1500), new Racer("second", 1500, 1500));

        assertThat(first).isEqualTo("committed/committed");
        new Racer("first", 0, 1500).applyTo(model, "t");
        new Racer("second", 1500, 1500).applyTo(model, "t");
        assertThat(Tables.difference(model, TestTables.read(table))).as("the table against the model").isEmpty();
        assertThat(table.snapshotManager().latestSnapshotId()).as("two snapshots, one per commit").isEqualTo(2L);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    @Test
    void whenBothCompactTheSameFileTheSecondCompactionFailsAndLeavesNothing() throws Exception {
        Path warehouse = dir.resolve("wh");
        FileStoreTable table = TestTables.createTable(warehouse, "c", Map.of(
                "bucket", "1", "file.format", "parquet",
                "num-sorted-run.compaction-trigger", "2", "commit.force-compact", "true"), true);
        Map<List<Integer>, String> model = TestTables.emptyModel();
        try (GovernedTableWrite setup = GovernedTableWrite.batch(table, ResourceContext.open("setup",
                Allocator.HEAP.provider(), GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "8m")),
                EngineEnvironment.standalone()))) {
            for (int k = 0; k < 300; k++) {
                InternalRow row = RacingCommitter.row(k, "setup");
                setup.write(row);
                TestTables.apply(model, row);
            }
            setup.prepareCommit().commit();
        }
        // Each file larger than the setup's, so that each compaction takes the setup's file in
        // (Paimon's size ratio); keys disjoint, so that the content does not depend on the order.
        Racer winner = new Racer("winner", 300, 1500);
        Racer loser = new Racer("loser", 1800, 1500);

        String outcome = race(warehouse, "c", winner, loser);

        // Paimon commits the new files (APPEND) and the compaction (COMPACT) as two snapshots; the
        // loser's compaction finds the setup's file already compacted away and fails.
        assertThat(outcome).isEqualTo("committed/committed");
        assertThat(kinds(table)).as("snapshots").containsExactly("APPEND", "APPEND", "COMPACT", "APPEND");
        winner.applyTo(model, "c");
        loser.applyTo(model, "c");
        assertThat(Tables.difference(model, TestTables.read(table))).as("the table against the model").isEmpty();
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    private static List<String> kinds(FileStoreTable table) throws Exception {
        return table.snapshotManager().safelyGetAllSnapshots().stream()
                .sorted(java.util.Comparator.comparingLong(org.apache.paimon.Snapshot::id))
                .map(s -> s.commitKind().name())
                .toList();
    }

    /** A racing committer's keys: {@code rows} keys from {@code first} in partition 0. */
    private record Racer(String name, int first, int rows) {
        void applyTo(Map<List<Integer>, String> model, String table) {
            for (int i = 0; i < rows; i++) {
                TestTables.apply(model, RacingCommitter.row(first + i, table + "@" + gate()));
            }
        }

        String gate() {
            return name;
        }
    }

    /**
     * Starts both committers, waits until both stand at their gates, lets {@code a} commit, then
     * {@code b}; returns their outcomes as {@code a/b}.
     */
    private String race(Path warehouse, String table, Racer a, Racer b) throws Exception {
        Process pa = start(warehouse, table, a);
        Process pb = start(warehouse, table, b);
        try {
            ChildJvm.awaitMarker(pa, gate(a, ".ready"), log(a), 180);
            ChildJvm.awaitMarker(pb, gate(b, ".ready"), log(b), 180);
            ChildJvm.touch(gate(a, ".go"));
            assertThat(pa.waitFor(180, TimeUnit.SECONDS)).as("the first committer ended").isTrue();
            ChildJvm.touch(gate(b, ".go"));
            assertThat(pb.waitFor(180, TimeUnit.SECONDS)).as("the second committer ended").isTrue();
            return outcome(a, pa) + "/" + outcome(b, pb);
        } finally {
            pa.destroyForcibly();
            pb.destroyForcibly();
        }
    }

    private Process start(Path warehouse, String table, Racer r) throws Exception {
        return ChildJvm.start(RacingCommitter.class, log(r), warehouse.toString(), table, Integer.toString(r.first),
                Integer.toString(r.rows), dir.resolve(r.gate()).toString(), dir.resolve(r.name + ".outcome").toString());
    }

    private String outcome(Racer r, Process p) throws Exception {
        Path file = dir.resolve(r.name + ".outcome");
        String text = Files.exists(file) ? Files.readString(file) : "(no outcome; log: " + Files.readString(log(r)) + ")";
        assertThat(p.exitValue()).as(r.name + ": " + text).isEqualTo(text.equals("committed") ? 0 : 1);
        return text;
    }

    private Path gate(Racer r, String suffix) {
        return dir.resolve(r.gate() + suffix);
    }

    private Path log(Racer r) {
        return dir.resolve(r.name + ".log");
    }
}
