package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.MeasuredFootprints;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many (partition, bucket) writers under one small budget: writers of their own up to what the
 * budget holds, early closes of writers that took enough input, the shared sort for the rest. The
 * expected table is the workload's own model (last write per key, deletes applied).
 */
class ManyWritersTest {

    /** Partitions x 8 buckets: 512 writers by default. */
    private static final int PARTITIONS = Integer.getInteger("governance.test.many-writers.partitions", 64);

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"parquet", "orc", "avro"})
    void rowsSpreadOverHundredsOfWritersCommitTheModelThroughTheSharedSort(String format) throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, format);
        Workload w = Workload.random(format.hashCode(), WriteHarness.ROWS, 400, PARTITIONS, 32);

        h.writeAndCommit(table, h.options("8m", "governance.memory.page-size", "16k"), w.rows());

        MetricsSnapshot m = h.context.snapshot();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(m.sortedRows()).as("rows that waited in the shared sort").isPositive().isLessThan(m.inputRows());
        assertThat(m.peakWritersOpen()).as("writers open at once").isLessThan(PARTITIONS * 8L);
        h.assertPeakWithin("8m", m);
        assertThat(m.writersOpen()).isZero();
        assertThat(m.reservedBytes()).isZero();
        assertThat(m.spillFilesLeft()).isZero();
    }

    @Test
    void writersClosedEarlyReopenWhereTheyLeftOff() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "avro");
        // Two passes, each partition by partition: every writer is closed early to make room for the
        // next partition's and reopened in the second pass, whose rows must win over the first's
        // (sequence numbers continue, the first pass's files stay known to its levels).
        List<InternalRow> rows = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            List<InternalRow> clustered =
                    new ArrayList<>(Workload.random(11 + pass, WriteHarness.ROWS / 2, 200, PARTITIONS, 32).rows());
            clustered.sort(Comparator.comparingInt(r -> r.getInt(0)));
            rows.addAll(clustered);
        }
        Workload twice = Workload.of(rows);

        h.writeAndCommit(
                table,
                h.options("8m", "governance.memory.page-size", "16k", "governance.write.early-close-min-bytes", "0"),
                rows);

        MetricsSnapshot m = h.context.snapshot();
        assertThat(TestTables.read(table)).isEqualTo(twice.expected());
        assertThat(m.writersClosedEarly()).as("writers closed to make room").isPositive();
        assertThat(m.filesRolledEarly()).isPositive();
        assertThat(m.reservedBytes()).isZero();
    }

    @Test
    void theCommitMessagesOfWritersClosedEarlyAreChargedUntilPrepareCommitTakesThem() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "avro");
        List<InternalRow> clustered = new ArrayList<>(Workload.random(13, WriteHarness.ROWS / 2, 200, PARTITIONS, 32).rows());
        clustered.sort(Comparator.comparingInt(r -> r.getInt(0)));
        Workload w = Workload.of(clustered);

        try (GovernedTableWrite write = h.batch(table,
                h.options("8m", "governance.memory.page-size", "16k", "governance.write.early-close-min-bytes", "0"))) {
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            MetricsSnapshot m = h.context.snapshot();
            assertThat(m.writersClosedEarly()).as("writers closed to make room").isPositive();
            // Each closed writer's message names the files it rolled: the measured bytes of a message per file.
            long perFile = MeasuredFootprints.get().bytes("pk", "avro", "message", 16 << 10);
            assertThat(h.context.holders())
                    .contains(new ResourceExhaustedException.Holder("commit messages of closed writers", m.filesRolledEarly() * perFile));

            write.prepareCommit().commit();
            assertThat(h.context.holders()).extracting(ResourceExhaustedException.Holder::name)
                    .doesNotContain("commit messages of closed writers");
        }
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
    }

    /**
     * One row into each of 2,048 partitions: a few dozen writers open, every other one waits in the
     * shared sort, whose bookkeeping for it (the measured {@code sorted-key} bytes) is charged until
     * the drain at prepareCommit.
     */
    @Test
    void everyWriterWaitingInTheSharedSortIsChargedItsMeasuredBookkeeping() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "avro");
        int partitions = 2048;
        List<InternalRow> rows = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            rows.add(GenericRow.of(p, p, BinaryString.fromString("v")));
        }
        try (GovernedTableWrite write = h.batch(table, h.options("8m", "governance.memory.page-size", "16k"))) {
            for (InternalRow row : rows) {
                write.write(row);
            }
            MetricsSnapshot m = h.context.snapshot();
            long sortedWriters = partitions - m.writersOpen();
            assertThat(m.sortedRows()).as("one row per writer that waits in the sort").isEqualTo(sortedWriters);
            long perWriter = MeasuredFootprints.get().bytes("pk", "any", "sorted-key", 16 << 10);
            assertThat(perWriter).isPositive();
            assertThat(h.context.holders()).contains(new ResourceExhaustedException.Holder("shared sort writers", sortedWriters * perWriter));

            write.prepareCommit().commit();
            assertThat(h.context.holders()).extracting(ResourceExhaustedException.Holder::name).doesNotContain("shared sort writers");
        }
        assertThat(TestTables.read(table)).hasSize(partitions);
    }

    @Test
    void withoutTheSharedSortWritersPastTheCapShareThePagesAsPaimonsOwnWritersDo() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "avro");
        Workload w = Workload.random(5, WriteHarness.ROWS, 400, PARTITIONS, 32);

        // 512 writers' reservations fit in 8m; their pages do not, so writers spill one another.
        h.writeAndCommit(table, h.options("8m", "governance.memory.page-size", "16k", "governance.write.shared-sort", "false"),
                w.rows());

        MetricsSnapshot m = h.context.snapshot();
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(m.peakWritersOpen()).isEqualTo(PARTITIONS * 8);
        assertThat(m.sortedRows()).isZero();
        assertThat(m.spillBytes()).isPositive();
    }

    @Test
    void withoutTheSharedSortAWriterThatDoesNotFitIsRefusedWithTheNumbers() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 8, "avro");
        Workload w = Workload.random(5, WriteHarness.ROWS, 400, PARTITIONS, 32);

        // At 4m what the fixed reservations leave holds about 190 writers' reservations, not 512.
        assertThatThrownBy(
                        () -> h.writeAndCommit(
                                table,
                                h.options("4m", "governance.memory.page-size", "16k", "governance.write.shared-sort",
                                        "false"),
                                w.rows()))
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining("writers open: ")
                .hasMessageContaining("each costs ")
                .hasMessageContaining("the shared sort is off");
        assertThat(TestTables.read(table)).isEmpty();
    }
}
