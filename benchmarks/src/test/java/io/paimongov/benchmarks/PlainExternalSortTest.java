package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P4's reference sort against a model: the same rows, each given the bucket of the table's own
 * bucket function and its arrival number in that bucket, sorted by (bucket, key, arrival) with a
 * Java comparator. What comes out of the plain external sort, decoded as Paimon's key-value rows,
 * must be that list; and it leaves no file behind.
 */
class PlainExternalSortTest {

    private static final int ROWS = 3_000;

    @TempDir Path dir;

    @ParameterizedTest(name = "{0} runs, fan-in {1}, {2}")
    @CsvSource({"12, 3, lz4", "12, 3, zstd", "12, 64, lz4", "0, 4, lz4", "40, 2, zstd"})
    void givesOutEveryRowInKeyOrderBucketByBucket(long runs, int fanIn, String codec) throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(3));
        List<GenericRow> rows = rows();
        PlainExternalSort.Plan plan = new PlainExternalSort.Plan(runs, fanIn, 512, new CompressOptions(codec, 1));
        PlainExternalSort.Input input = PlainExternalSort.prepare(table, rows, plan);

        List<String> out = new ArrayList<>();
        PlainExternalSort.Result result = PlainExternalSort.run(dir.resolve("spill"), input, plan, (bucket, bytes, offset, length) -> {
            BinaryRow row = new BinaryRow(input.rowArity());
            row.pointTo(MemorySegment.wrap(Arrays.copyOfRange(bytes, offset, offset + length)), 0, length);
            out.add(bucket + "/" + row.getInt(0) + "/" + row.getLong(1) + "/" + row.getInt(3) + "/" + row.getString(4));
        });

        assertThat(out).isEqualTo(model(table, rows));
        assertThat(result.rows()).isEqualTo(ROWS);
        assertThat(result.files()).isEqualTo(runs + result.merges());
        // A bucket (about a third of the runs here) with more runs than the fan-in less one (its
        // piece in memory is a stream too) merges some first.
        if (runs / 3 <= fanIn - 1) {
            assertThat(result.merges()).isZero();
        } else {
            assertThat(result.merges()).isPositive();
        }
        try (Stream<Path> left = Files.list(dir.resolve("spill"))) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void runsAreSharedInProportionToEachBucketsRows() {
        assertThat(PlainExternalSort.share(10, new long[] {100, 100, 100})).containsExactly(4, 3, 3);
        assertThat(PlainExternalSort.share(88, new long[] {30_100, 29_900, 30_000, 30_000})).containsExactly(22, 22, 22, 22);
        assertThat(PlainExternalSort.share(5, new long[] {0, 10, 0})).containsExactly(0, 5, 0);
        assertThat(PlainExternalSort.share(3, new long[] {0, 0})).containsExactly(0, 0);
    }

    @Test
    void aPlanNamesWhatIsWrong() {
        CompressOptions lz4 = new CompressOptions("lz4", 1);
        assertThatThrownBy(() -> new PlainExternalSort.Plan(1, 1, 512, lz4)).hasMessageContaining("fan-in");
        assertThatThrownBy(() -> new PlainExternalSort.Plan(1, 4, 16, lz4)).hasMessageContaining("block");
        assertThatThrownBy(() -> new PlainExternalSort.Plan(1, 4, 512, new CompressOptions("lzo", 1))).hasMessageContaining("lzo");
    }

    /** Seeded rows whose keys repeat (300 keys over 3,000 rows) and whose values differ in length. */
    private static List<GenericRow> rows() {
        List<GenericRow> rows = new ArrayList<>();
        BenchTables.Rows gen = new BenchTables.Rows(5, 300, 40);
        for (int i = 0; i < ROWS; i++) {
            GenericRow r = gen.next();
            rows.add(i % 7 == 0 ? GenericRow.of(r.getInt(0), org.apache.paimon.data.BinaryString.fromString("x".repeat(i % 900))) : r);
        }
        return rows;
    }

    private static List<String> model(FileStoreTable table, List<GenericRow> rows) {
        KeyAndBucketExtractor<InternalRow> buckets = table.createRowKeyExtractor();
        int[] arrivals = new int[table.coreOptions().bucket()];
        List<Object[]> keyed = new ArrayList<>();
        for (GenericRow r : rows) {
            buckets.setRecord(r);
            int b = buckets.bucket();
            keyed.add(new Object[] {b, r.getInt(0), (long) arrivals[b]++, r.getString(1).toString()});
        }
        keyed.sort(Comparator.<Object[]>comparingInt(k -> (int) k[0]).thenComparingInt(k -> (int) k[1]).thenComparingLong(k -> (long) k[2]));
        return keyed.stream().map(k -> k[0] + "/" + k[1] + "/" + k[2] + "/" + k[1] + "/" + k[3]).toList();
    }
}
