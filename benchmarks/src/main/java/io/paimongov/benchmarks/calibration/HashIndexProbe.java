package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;

/*
 * The child side of the hash-index measurement: what a dynamic-bucket primary-key write keeps on
 * the heap per distinct key, measured in a JVM of its own as FootprintProbe measures writers.
 *
 * A dynamic-bucket table (bucket = -1) gets its buckets from Paimon's HashBucketAssigner (one
 * assigner, as a single writer runs it), which keeps per partition an int -> short map of every key
 * hash; each bucket writer keeps the hashes of its bucket again in an int set
 * (DynamicBucketIndexMaintainer). Both are fastutil open hash tables with load factor 0.75, so their
 * cost per key steps with their doubling: a key count just past 0.75 * 2^n is the worst point
 * (arrays 2.67 times the keys). The parent measures two such counts; their slope is the cost of one
 * more key at the worst point, which the runtime charges for every key.
 *
 * One partition, keys 0..K-1 (fewer than dynamic-bucket.target-row-num, so one bucket), tiny
 * values; after the rows, prepareCommit(false, 1) flushes the write buffer to a file and writes the
 * index file while the writer (and its int set) stays, as in a stream write. Live heap after
 * settled full collections, less the baseline (write open, no row) and less the pool's pages.
 */
final class HashIndexProbe {

    static final String RESULT = "HASHINDEX";
    static final int WARM_UP_KEYS = 50_000;

    private HashIndexProbe() {}

    /** {@code PAGE_SIZE KEYS WORK_DIR}: prints {@code HASHINDEX keys=K heap=B pages=P}. */
    public static void main(String[] args) throws Exception {
        CountedProbeArgs a = CountedProbeArgs.parse("HashIndexProbe", "KEYS", args);
        measure(a.work().resolve("warm-up"), a.pageSize(), WARM_UP_KEYS);
        long[] m = measure(a.work().resolve("measured"), a.pageSize(), a.count());
        System.out.println(RESULT + " keys=" + a.count() + " heap=" + m[0] + " pages=" + m[1]);
    }

    /** Returns {live heap above the baseline less the pool's pages, pages held}. */
    static long[] measure(Path dir, int pageSize, int keys) throws Exception {
        FileStoreTable table = create(dir.resolve("warehouse"), pageSize);
        FootprintProbe.CountingPool pool = new FootprintProbe.CountingPool(pageSize);
        IOManager io = IOManager.create(Files.createDirectories(dir.resolve("io")).toString());
        String user = UUID.randomUUID().toString();
        long[] result;
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newStreamWriteBuilder().withCommitUser(user).newWrite()) {
            write.withIOManager(io).withMemoryPoolFactory(new MemoryPoolFactory(pool));
            CoreOptions options = table.coreOptions();
            HashBucketAssigner assigner = new HashBucketAssigner(table.snapshotManager(), user,
                    table.store().newIndexFileHandler(), 1, 1, 0, options.dynamicBucketTargetRowNum(),
                    options.dynamicBucketMaxBuckets() == null ? -1 : options.dynamicBucketMaxBuckets());
            RowKeyExtractor extractor = table.createRowKeyExtractor();
            long baseline = FootprintProbe.liveHeapBytes();
            BinaryString value = BinaryString.fromString("v");
            for (int k = 0; k < keys; k++) {
                GenericRow row = GenericRow.of(0, k, value);
                extractor.setRecord(row);
                BinaryRow partition = extractor.partition();
                write.write(row, assigner.assign(partition, extractor.trimmedPrimaryKey().hashCode()));
            }
            write.prepareCommit(false, 1);
            long heap = FootprintProbe.liveHeapBytes() - baseline - pool.heapBytes();
            result = new long[] {heap, pool.heldBytes()};
            Reference.reachabilityFence(assigner);
        } finally {
            io.close();
        }
        BenchTables.deleteTree(dir);
        return result;
    }

    /** {@code cal.h (p INT, k INT, v STRING)}, partitioned by p, primary key (p, k), bucket = -1. */
    static FileStoreTable create(Path warehouse, int pageSize) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("p", DataTypes.INT().notNull())
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .option("bucket", "-1")
                .option(CoreOptions.PAGE_SIZE.key(), Integer.toString(pageSize))
                .option(CoreOptions.ASYNC_FILE_WRITE.key(), "false")
                .option(CoreOptions.WRITE_BUFFER_SPILLABLE.key(), "true")
                .build();
        return FootprintProbe.createTable(warehouse, "h", schema);
    }
}
