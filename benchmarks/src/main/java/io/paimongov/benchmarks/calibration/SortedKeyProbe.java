package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.LiveHeap;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

/*
 * The child side of the shared-sort key measurement: what a governed write keeps on the heap, outside
 * its pages, for each (partition, bucket) writer whose rows wait in the shared sort (the sort's index
 * of writers and the admission's set of sorted writers, each with a copy of the partition), measured
 * in a JVM of its own as FootprintProbe measures writers.
 *
 * A governed write (heap provider, BUDGET) on a primary-key table partitioned by an INT, one bucket;
 * one row into each of K partitions. A writer of its own costs a 64th of the budget, so a few dozen
 * writers open and every further one goes to the shared sort; the open ones are as many at both key
 * counts and fall out of the slope, and so does the write itself. Live heap after settled full
 * collections, less the baseline (write open, no row) and less every page the write holds (the
 * sort's rows are in pages).
 */
final class SortedKeyProbe {

    static final String RESULT = "SORTEDKEYS";
    static final String STAGE = "sorted-key";
    static final long BUDGET = 64L << 20;
    static final int WARM_UP_KEYS = 2_000;

    private SortedKeyProbe() {}

    /** {@code PAGE_SIZE KEYS WORK_DIR}: prints {@code SORTEDKEYS keys=K heap=B pages=P sorted=S}. */
    public static void main(String[] args) throws Exception {
        CountedProbeArgs a = CountedProbeArgs.parse("SortedKeyProbe", "KEYS", args);
        measure(a.work().resolve("warm-up"), a.pageSize(), WARM_UP_KEYS);
        long[] m = measure(a.work().resolve("measured"), a.pageSize(), a.count());
        System.out.println(RESULT + " keys=" + a.count() + " heap=" + m[0] + " pages=" + m[1] + " sorted=" + m[2]);
    }

    /** Returns {live heap above the baseline less the write's pages, pages held, writers sent to the sort}. */
    static long[] measure(Path dir, int pageSize, int keys) throws Exception {
        FileStoreTable table = create(dir.resolve("warehouse"));
        Path spill = Files.createDirectories(dir.resolve("spill"));
        long[] result;
        try (GovernedTableWrite write = BenchTables.governedWrite(table, "sorted-keys", BUDGET, spill,
                Map.of("governance.memory.page-size", Integer.toString(pageSize)))) {
            BinaryString value = BinaryString.fromString("v");
            long baseline = LiveHeap.settled();
            for (int p = 0; p < keys; p++) {
                write.write(GenericRow.of(p, 0, value));
            }
            var m = write.metrics();
            long heap = LiveHeap.settled() - baseline - m.pageBytes();
            result = new long[] {heap, m.pageBytes(), m.sortedRows()};
        }
        BenchTables.deleteTree(dir);
        return result;
    }

    /** {@code cal.s (p INT, k INT, v STRING)}, partitioned by p, primary key (p, k), one bucket. */
    static FileStoreTable create(Path warehouse) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("p", DataTypes.INT().notNull())
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .option("bucket", "1")
                .option(CoreOptions.FILE_FORMAT.key(), "parquet")
                .build();
        return FootprintProbe.createTable(warehouse, "s", schema);
    }
}
