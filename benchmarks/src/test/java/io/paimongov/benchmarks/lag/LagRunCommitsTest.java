package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Short real runs, the write in a child JVM and the commits here: the commit record against the
 * table it leaves. The level-0 rows the run's flushes added minus those its compactions replaced are
 * the level-0 rows the table's last snapshot holds (the prepared table starts without level-0
 * files), as Paimon's own file listing tells; and what the child reports about its heap is there.
 */
class LagRunCommitsTest {

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"1", LagChild.PLAIN})
    void theCommitsAccountForTheLevel0RowsTheTableHolds(String line) throws Exception {
        int keys = 2_000;
        Path prepared = dir.resolve("prepared");
        LagTable.prepare(prepared, keys, 3, dir.resolve("fill"), 16L << 20);
        assertThat(level0Rows(LagTable.table(prepared))).as("the prepared table").isZero();

        // Without a staircase: as fast as the writer goes, until 2 s after its first committed compaction (at most 8 s).
        LagRun.Settings settings = new LagRun.Settings(line, null, 2_000, 8_000, 250, 50, 0, 16L << 20, keys, 7, 1_000);
        Path run = dir.resolve("run");
        LagRun.Result r = LagRun.run(run, prepared, settings);

        assertThat(r.failure()).isNull();
        assertThat(r.commits()).isNotEmpty();
        long flushed = 0;
        long compacted = 0;
        long written = 0;
        for (LagRun.Commit c : r.commits()) {
            assertThat(c.rowsWritten()).as("rows written by a later checkpoint").isGreaterThanOrEqualTo(written);
            written = c.rowsWritten();
            flushed += c.level0RowsFlushed();
            compacted += c.level0RowsCompacted();
            assertThat(flushed).as("a flush merges a key's changes, never adds rows").isLessThanOrEqualTo(written);
        }
        assertThat(written).isLessThanOrEqualTo(r.value("rowsWritten"));
        assertThat(level0Rows(LagTable.table(run.resolve("warehouse")))).isEqualTo(flushed - compacted);
        assertThat(r.value("baselineBytes")).as("the child's live heap before the write").isPositive();
        assertThat(r.value("heapSamples")).as("at least the sample after the last row").isPositive();
        assertThat(r.child().containsKey("peakReservedBytes")).as("governed metrics only for a governed write")
                .isEqualTo(LagChild.governed(line));
    }

    @Test
    void aChildThatFailsGivesItsReason() throws Exception {
        Path prepared = dir.resolve("prepared");
        LagTable.prepare(prepared, 100, 3, dir.resolve("fill"), 16L << 20);
        // A budget of 64 KiB holds no writer: the governed write refuses to open, in the child.
        LagRun.Settings settings = new LagRun.Settings("1", null, 1_000, 2_000, 250, 50, 0, 64L << 10, 100, 7, 1_000);
        LagRun.Result r = LagRun.run(dir.resolve("run"), prepared, settings);
        assertThat(r.failure()).contains("budget");
        assertThat(r.commits()).isEmpty();
        assertThat(r.child()).isEmpty();
    }

    /** Rows of the level-0 files of the table's latest snapshot, from Paimon's plan without the level filter. */
    private static long level0Rows(FileStoreTable table) {
        long rows = 0;
        for (DataSplit split : table.newSnapshotReader().read().dataSplits()) {
            for (DataFileMeta file : split.dataFiles()) {
                if (file.level() == 0) {
                    rows += file.rowCount();
                }
            }
        }
        return rows;
    }
}
