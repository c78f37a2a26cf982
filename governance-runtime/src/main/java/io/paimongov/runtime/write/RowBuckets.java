package io.paimongov.runtime.write;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.sink.TableWriteImpl;

/**
 * The bucket of each row, for every {@link TableMode}: Paimon's own extractor where the table
 * knows it (fixed buckets, bucket-unaware append, the postpone bucket {@code -2}), {@link
 * DynamicBuckets} for dynamic-bucket primary keys, whose buckets Paimon's write cannot pick. The
 * write path then admits the (partition, bucket) writer and hands the row to Paimon with its bucket.
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call.
 */
final class RowBuckets {

    private final TableWriteImpl<?> write;
    private final DynamicBuckets dynamic;

    private RowBuckets(TableWriteImpl<?> write, DynamicBuckets dynamic) {
        this.write = write;
        this.dynamic = dynamic;
    }

    /** The buckets of {@code opened}'s table; a dynamic-bucket table gets its index charged to the budget. */
    static RowBuckets of(OpenedWrite opened) {
        DynamicBuckets dynamic = null;
        if (opened.tableMode.kind() == TableMode.Kind.PRIMARY_KEY_DYNAMIC) {
            long bytesPerKey = MeasuredFootprints.get()
                    .bytes("pk", DynamicBuckets.FORMAT, DynamicBuckets.STAGE, opened.context.pool().pageSize());
            dynamic = new DynamicBuckets(opened.table, opened.budget, bytesPerKey);
        }
        return new RowBuckets(opened.write, dynamic);
    }

    /** The bucket {@code row} goes to; {@code partition} is its partition. */
    int bucket(InternalRow row, BinaryRow partition) {
        return dynamic != null ? dynamic.bucket(row, partition) : write.getBucket(row);
    }

    /** The dynamic-bucket index, or null for other modes. */
    DynamicBuckets dynamic() {
        return dynamic;
    }
}
