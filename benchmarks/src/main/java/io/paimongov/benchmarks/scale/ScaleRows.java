package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import java.util.SplittableRandom;
import org.apache.paimon.data.GenericRow;

/**
 * The rows of a {@link ScaleCell}: {@code p} uniform over the partitions, {@code k} uniform over
 * the partition's keys ({@link ScaleCell#keysPerPartition()}; Paimon hashes {@code k} to a bucket,
 * so the rows spread uniformly over the buckets too), {@code v} {@code rowBytes} random letters
 * ({@link BenchTables.Rows}). Fixed seeds: the governed and the plain write get the same rows.
 *
 * <p>Not thread-safe: one per writing thread.
 */
final class ScaleRows {

    static final long SEED = 2048;

    private final SplittableRandom partitions = new SplittableRandom(SEED);
    private final BenchTables.Rows keysAndValues;
    private final int partitionCount;

    ScaleRows(ScaleCell cell) {
        this.partitionCount = cell.partitions();
        this.keysAndValues = new BenchTables.Rows(SEED + 1, cell.keysPerPartition(), cell.rowBytes());
    }

    /** The next row; a new object every call. */
    GenericRow next() {
        GenericRow kv = keysAndValues.next();
        return GenericRow.of(partitions.nextInt(partitionCount), kv.getInt(0), kv.getString(1));
    }
}
