package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The prepared table: every key once, aged by streamed commits, nothing left in level 0. */
class LagTableTest {

    @TempDir Path dir;

    @Test
    void anAgedTableHoldsEveryKeyOnceAndNoLevel0File() throws Exception {
        int keys = 2_000;
        FileStoreTable table = LagTable.create(dir.resolve("warehouse"));
        LagTable.fill(table, keys, 5, 1_000L, dir);
        long rows = 2L * LagTable.AGE_CHECKPOINT_ROWS + 123;
        LagTable.age(table, keys, rows, 6, 2_000L, dir);
        FileStoreTable aged = LagTable.table(dir.resolve("warehouse"));

        // Two commits of AGE_CHECKPOINT_ROWS rows without waiting, then the rest with waiting: the
        // last snapshot is the third commit of the ageing user (a compaction of it may follow).
        Snapshot last = aged.snapshotManager().latestSnapshot();
        assertThat(last.commitUser()).isEqualTo("bench-lag-age");
        assertThat(last.commitIdentifier()).isEqualTo(3);

        assertThat(new LagProbe(aged).read().level0Files()).as("level-0 files after the waiting commit").isZero();

        // Every key once, each with the fill's or the ageing's ts.
        Set<Integer> seen = new HashSet<>();
        long[] count = {0};
        ReadBuilder read = aged.newReadBuilder();
        try (RecordReader<InternalRow> reader = read.newRead().createReader(read.newScan().plan())) {
            reader.forEachRemaining(row -> {
                count[0]++;
                seen.add(row.getInt(0));
                assertThat(row.getLong(1)).isIn(1_000L, 2_000L);
            });
        }
        assertThat(count[0]).isEqualTo(keys);
        assertThat(seen).hasSize(keys);
    }
}
