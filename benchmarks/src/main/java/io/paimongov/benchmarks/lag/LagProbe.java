package io.paimongov.benchmarks.lag;

import java.io.IOException;
import java.util.List;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.table.source.snapshot.SnapshotReader;

/**
 * What a batch reader of the lag table sees: the newest {@code ts} in the latest snapshot, and how
 * many level-0 files that snapshot holds.
 *
 * <p>How: Paimon's own batch scan plans the latest snapshot (for a deletion-vector table it skips
 * level 0, as every batch read does); the newest {@code ts} is the largest maximum in the planned
 * files' value statistics, so no row is read and a probe costs milliseconds. That equals the newest
 * visible row: a row a deletion vector hides was hidden by a newer version of its key, committed in
 * the same snapshot out of level 0, with a larger {@code ts}. {@link #newestByRows} reads the rows
 * instead (what the statistics claim is checked against that, now and then). The level-0 count
 * comes from a second plan of the same snapshot without the level filter.
 *
 * <p>Thread-safety: one probe per thread (Paimon's scans are not shared); the table may be written
 * and committed meanwhile.
 */
final class LagProbe {

    /** No row visible. */
    static final long NONE = Long.MIN_VALUE;

    /**
     * One look at the table.
     *
     * @param snapshotId the snapshot planned; -1 when the table has none
     * @param newestTs the newest visible {@code ts}, {@link #NONE} when nothing is visible
     * @param level0Files level-0 files of that snapshot
     * @param splits the batch plan's splits, to read the rows of the same snapshot
     */
    record Reading(long snapshotId, long newestTs, int level0Files, List<Split> splits) {}

    private final FileStoreTable table;
    private final int tsField;

    LagProbe(FileStoreTable table) {
        this.table = table;
        this.tsField = table.rowType().getFieldIndex("ts");
    }

    Reading read() {
        TableScan.Plan plan = table.newReadBuilder().newScan().plan();
        if (!(plan instanceof SnapshotReader.Plan snapshotPlan) || snapshotPlan.snapshotId() == null) {
            return new Reading(-1, NONE, 0, List.of());
        }
        long snapshotId = snapshotPlan.snapshotId();
        long newest = NONE;
        for (DataSplit split : snapshotPlan.dataSplits()) {
            for (DataFileMeta file : split.dataFiles()) {
                newest = Math.max(newest, maxTs(file));
            }
        }
        int level0 = 0;
        for (DataSplit split : table.newSnapshotReader().withSnapshot(snapshotId).read().dataSplits()) {
            for (DataFileMeta file : split.dataFiles()) {
                if (file.level() == 0) {
                    level0++;
                }
            }
        }
        return new Reading(snapshotId, newest, level0, snapshotPlan.splits());
    }

    /** The file's largest {@code ts} from its statistics. */
    private long maxTs(DataFileMeta file) {
        List<String> columns = file.valueStatsCols();
        int index = columns == null ? tsField : columns.indexOf("ts");
        BinaryRow max = file.valueStats().maxValues();
        if (index < 0 || index >= max.getFieldCount() || max.isNullAt(index)) {
            throw new IllegalStateException("data file " + file.fileName() + " has no statistics for ts (stats columns " + columns
                    + "); the table sets fields.ts.stats-mode=full");
        }
        return max.getLong(index);
    }

    /**
     * The newest {@code ts} among the rows of {@code reading}'s snapshot that are newer than {@code
     * after}, read row by row (deletion vectors applied); {@code after} when there is none.
     */
    long newestByRows(Reading reading, long after) throws IOException {
        ReadBuilder builder = table.newReadBuilder().withProjection(new int[] {tsField});
        if (after != NONE) {
            builder.withFilter(new PredicateBuilder(table.rowType()).greaterThan(tsField, after));
        }
        long[] newest = {after};
        try (RecordReader<org.apache.paimon.data.InternalRow> reader = builder.newRead().createReader(reading.splits())) {
            reader.forEachRemaining(row -> newest[0] = Math.max(newest[0], row.getLong(0)));
        }
        return newest[0];
    }
}
