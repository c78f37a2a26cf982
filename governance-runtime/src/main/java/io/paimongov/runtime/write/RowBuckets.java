package io.paimongov.runtime.write;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;

/**
 * The partition and bucket of each row, for every {@link TableMode}: Paimon's own extractor where
 * the table knows the bucket (fixed buckets, bucket-unaware append, the postpone bucket {@code -2}),
 * {@link DynamicBuckets} for dynamic-bucket primary keys, whose buckets Paimon's write cannot pick.
 * The write path then admits the (partition, bucket) writer and hands the row to Paimon with its
 * bucket, which finds the partition already extracted ({@link RowKeys}).
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call.
 */
final class RowBuckets {

    private final RowKeys keys;
    private final DynamicBuckets dynamic;

    private RowBuckets(RowKeys keys, DynamicBuckets dynamic) {
        this.keys = keys;
        this.dynamic = dynamic;
    }

    /** The buckets of {@code opened}'s table; a dynamic-bucket table gets its index charged to the budget. */
    static RowBuckets of(OpenedWrite opened) {
        DynamicBuckets dynamic = null;
        if (opened.tableMode.kind() == TableMode.Kind.PRIMARY_KEY_DYNAMIC) {
            long bytesPerKey = MeasuredFootprints.get()
                    .bytes("pk", DynamicBuckets.FORMAT, DynamicBuckets.STAGE, opened.context.pool().pageSize());
            dynamic = new DynamicBuckets(opened.table, opened.budget, bytesPerKey, opened.channels, opened.overwrite);
        }
        return new RowBuckets(RowKeys.install(opened.write), dynamic);
    }

    /**
     * The partition of {@code row}, which becomes the row {@link #bucket} and Paimon's next write
     * look at. The result is the extractor's buffer: valid until the next row; copy it to keep it.
     */
    BinaryRow partition(InternalRow row) {
        keys.look(row);
        return keys.partition();
    }

    /** The bucket of the row {@link #partition} was last asked for; {@code partition} is what it returned. */
    int bucket(InternalRow row, BinaryRow partition) {
        return dynamic != null ? dynamic.bucket(row, partition) : keys.bucket();
    }

    /** The dynamic-bucket index, or null for other modes. */
    DynamicBuckets dynamic() {
        return dynamic;
    }
}
