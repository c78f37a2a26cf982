package io.paimongov.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TableFiles;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.ConcurrentWriterException;
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
 * snapshot id taken. Both passed the check made when their commits began (neither had committed);
 * the second's retried attempt finds the first's snapshot in the bucket it writes (the check before
 * each snapshot file, {@code ConcurrentWriters}) and is refused with {@link
 * ConcurrentWriterException}: Paimon allows one writer per bucket, and the two writers' rows carry
 * the same sequence numbers, which the table would merge in no defined order.
 *
 * <ul>
 *   <li>Appends only: the first lands, the second is refused. The table equals the first writer's
 *       rows, and the files of the refused commit (its attempts' manifests, its data files) are gone.
 *   <li>Both would compact the same file: the first lands its new files and its compaction; the
 *       second is refused before it publishes anything. The table equals the setup and the first
 *       writer's rows.
 * </ul>
 *
 * <p>In both, no manifest, manifest list or data file is left that no snapshot references, counted
 * by {@link TableFiles} from the directory and Paimon's manifest readers.
 */
@Tag("reliability")
class ConcurrentCommitTest {

    /** How the refused committer's outcome begins. */
    private static final String REFUSED = ConcurrentWriterException.class.getName() + ": another writer";

    @TempDir Path dir;

    @Test
    void ofTwoAppendingCommittersOfOneBucketTheSecondIsRefusedAndLeavesNothing() throws Exception {
        Path warehouse = dir.resolve("wh");
        FileStoreTable table = TestTables.createTable(warehouse, "t",
                Map.of("bucket", "1", "file.format", "parquet"), true);
        Map<List<Integer>, String> model = TestTables.emptyModel();

        String outcome = race(warehouse, "t", new Racer("first", 0, 1500), new Racer("second", 1500, 1500));

        assertThat(outcome).startsWith("committed/" + REFUSED);
        new Racer("first", 0, 1500).applyTo(model, "t");
        assertThat(Tables.difference(model, TestTables.read(table))).as("the table against the model").isEmpty();
        assertThat(table.snapshotManager().latestSnapshotId()).as("the first writer's snapshot alone").isEqualTo(1L);
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
    }

    @Test
    void whenBothWouldCompactTheSameFileTheSecondIsRefusedBeforeItPublishes() throws Exception {
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

        // Paimon commits the winner's new files (APPEND) and its compaction (COMPACT) as two
        // snapshots; the loser's first snapshot would follow them into the same bucket.
        assertThat(outcome).startsWith("committed/" + REFUSED);
        assertThat(kinds(table)).as("snapshots").containsExactly("APPEND", "APPEND", "COMPACT");
        winner.applyTo(model, "c");
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
