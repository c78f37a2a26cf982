package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short real run's commit record against the table it leaves: the level-0 rows the run's
 * flushes added minus those its compactions replaced are the level-0 rows the table's last snapshot
 * holds (the prepared table starts without level-0 files), as Paimon's own file listing tells.
 */
class LagRunCommitsTest {

    @TempDir Path dir;

    @Test
    void theCommitsAccountForTheLevel0RowsTheTableHolds() throws Exception {
        int keys = 2_000;
        Path warehouse = dir.resolve("warehouse");
        LagTable.prepare(warehouse, keys, 3, dir.resolve("fill"));
        assertThat(level0Rows(LagTable.table(warehouse))).as("the prepared table").isZero();

        LagRun.Settings settings = new LagRun.Settings("1", 0, 2_500, 250, 50, 0, 16L << 20, keys, 7);
        LagRun.Result r = LagRun.run(warehouse, dir, settings);

        assertThat(r.commits()).isNotEmpty();
        assertThat(r.metrics().compactionCount()).as("one thread compacted during the run").isPositive();
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
        assertThat(written).isLessThanOrEqualTo(r.rowsWritten());
        assertThat(compacted).as("compactions replaced level-0 rows").isPositive();
        assertThat(level0Rows(LagTable.table(warehouse))).isEqualTo(flushed - compacted);
        assertThat(r.drainedRowsPerSec(0, settings.durationMillis())).isPositive();
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
