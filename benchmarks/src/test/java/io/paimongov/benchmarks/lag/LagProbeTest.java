package io.paimongov.benchmarks.lag;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe against real rows written by plain Paimon: on the deletion-vector table a commit that
 * did not compact shows a batch reader nothing new, and after a full compaction the probe's newest
 * {@code ts} is the largest {@code ts} the test wrote. The expected values are the test's own input.
 */
class LagProbeTest {

    @TempDir Path dir;

    @Test
    void seesOnlyCompactedRowsAndTheirNewestTs() throws Exception {
        FileStoreTable table = LagTable.create(dir.resolve("warehouse"));
        LagProbe probe = new LagProbe(table);
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("probe-test");
        long identifier = 1;
        try (StreamTableCommit commit = builder.newCommit()) {
            // 1. Rows of ts 1000..1999 over 300 keys, committed write-only: all in level 0.
            long firstMax = writeOnly(table, commit, identifier++, 1000, 1000, 300);
            LagProbe.Reading before = probe.read();
            assertThat(before.snapshotId()).isEqualTo(1);
            assertThat(before.newestTs()).isEqualTo(LagProbe.NONE);
            assertThat(before.level0Files()).isPositive();
            assertThat(probe.newestByRows(before, LagProbe.NONE)).isEqualTo(LagProbe.NONE);

            // 2. A full compaction of every bucket: everything visible, nothing left in level 0.
            compactAll(table, commit, identifier++, dir);
            LagProbe.Reading compacted = probe.read();
            assertThat(compacted.newestTs()).isEqualTo(firstMax);
            assertThat(compacted.level0Files()).isZero();
            assertThat(probe.newestByRows(compacted, LagProbe.NONE)).isEqualTo(firstMax);

            // 3. Newer rows (updates of the same keys and new keys) committed without compaction: nothing new.
            long secondMax = writeOnly(table, commit, identifier++, 5000, 400, 600);
            LagProbe.Reading pending = probe.read();
            assertThat(pending.newestTs()).isEqualTo(firstMax);
            assertThat(pending.level0Files()).isPositive();
            assertThat(probe.newestByRows(pending, firstMax)).isEqualTo(firstMax);

            // 4. Compacted: the updates hide older versions with deletion vectors; the newest is the new maximum.
            compactAll(table, commit, identifier++, dir);
            LagProbe.Reading after = probe.read();
            assertThat(after.newestTs()).isEqualTo(secondMax);
            assertThat(after.level0Files()).isZero();
            assertThat(probe.newestByRows(after, firstMax)).isEqualTo(secondMax);
            assertThat(probe.newestByRows(after, secondMax)).isEqualTo(secondMax);
        }
    }

    @Test
    void aFilledTableShowsEveryKeyCompactedWithItsTs() throws Exception {
        FileStoreTable table = LagTable.create(dir.resolve("filled"));
        LagTable.fill(table, 1_000, 7, 123_456L, dir);
        LagProbe probe = new LagProbe(table);
        LagProbe.Reading r = probe.read();
        assertThat(r.newestTs()).isEqualTo(123_456L);
        assertThat(r.level0Files()).isZero();
        long rows = 0;
        try (var reader = table.newReadBuilder().newRead().createReader(r.splits())) {
            var it = reader.toCloseableIterator();
            while (it.hasNext()) {
                it.next();
                rows++;
            }
        }
        assertThat(rows).isEqualTo(1_000);
    }

    /** Writes {@code n} rows of ts {@code from..from+n-1}, keys {@code i % keys}, and commits without compacting; returns the largest ts. */
    private static long writeOnly(FileStoreTable table, StreamTableCommit commit, long identifier, long from, int n, int keys) throws Exception {
        StreamWriteBuilder builder = table.copy(Map.of("write-only", "true")).newStreamWriteBuilder().withCommitUser("probe-test");
        long max = Long.MIN_VALUE;
        try (StreamTableWrite write = builder.newWrite()) {
            for (int i = 0; i < n; i++) {
                long ts = from + i;
                write.write(GenericRow.of(i % keys, ts, BinaryString.fromString("v" + i)));
                max = Math.max(max, ts);
            }
            commit.commit(identifier, write.prepareCommit(false, identifier));
        }
        return max;
    }

    private static void compactAll(FileStoreTable table, StreamTableCommit commit, long identifier, Path tmp) throws Exception {
        try (IOManager io = IOManager.create(tmp.toString());
                StreamTableWrite write = (StreamTableWrite) table.newStreamWriteBuilder().withCommitUser("probe-test").newWrite().withIOManager(io)) {
            for (int bucket = 0; bucket < LagTable.BUCKETS; bucket++) {
                write.compact(BinaryRow.EMPTY_ROW, bucket, true);
            }
            commit.commit(identifier, write.prepareCommit(true, identifier));
        }
    }
}
