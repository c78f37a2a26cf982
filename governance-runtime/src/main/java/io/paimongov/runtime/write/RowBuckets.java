package io.paimongov.runtime.write;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.operation.AbstractFileStoreWrite;

/**
 * The partition and bucket of each row, for every {@link TableMode}: Paimon's own extractor where
 * the table knows the bucket (fixed buckets, bucket-unaware append, the postpone bucket {@code -2}),
 * {@link DynamicBuckets} for dynamic-bucket primary keys, whose buckets Paimon's write cannot pick,
 * when this write gets every row; the caller's bucket when the rows were assigned before the
 * writers' shuffle ({@link #preAssigned}), whose writers' key hashes {@link MaintainedHashes} charges.
 * The write path then admits the (partition, bucket) writer and hands the row to Paimon with its
 * bucket, which finds the partition already extracted ({@link RowKeys}).
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call.
 */
final class RowBuckets {

    private final RowKeys keys;
    private final DynamicBuckets dynamic;
    private final MaintainedHashes maintained;
    /** Whether rows come with their buckets ({@link #assigned}), assigned before the writers' shuffle. */
    private final boolean preAssigned;

    private RowBuckets(RowKeys keys, DynamicBuckets dynamic, MaintainedHashes maintained, boolean preAssigned) {
        this.keys = keys;
        this.dynamic = dynamic;
        this.maintained = maintained;
        this.preAssigned = preAssigned;
    }

    /**
     * The buckets of {@code opened}'s table. A dynamic-bucket table gets its index charged to the
     * budget: the assigner's when this write assigns, the writers' when the rows come assigned.
     */
    static RowBuckets of(OpenedWrite opened) {
        TableMode.Kind kind = opened.tableMode.kind();
        boolean assigning = kind == TableMode.Kind.PRIMARY_KEY_DYNAMIC || kind == TableMode.Kind.PRIMARY_KEY_CROSS_PARTITION;
        long bytesPerKey = MeasuredFootprints.get()
                .bytes("pk", DynamicBuckets.FORMAT, DynamicBuckets.STAGE, opened.context.pool().pageSize());
        DynamicBuckets dynamic = null;
        MaintainedHashes maintained = null;
        if (kind == TableMode.Kind.PRIMARY_KEY_DYNAMIC) {
            if (opened.assignsBuckets()) {
                dynamic = new DynamicBuckets(opened.table, opened.budget, bytesPerKey, opened.channels, opened.overwrite);
            } else {
                AbstractFileStoreWrite<?> paimon = (AbstractFileStoreWrite<?>) opened.write.getWrite();
                maintained = new MaintainedHashes(opened.budget, bytesPerKey,
                        () -> PaimonWriters.maintainedHashes(paimon, opened.writers.closed().states()),
                        opened.overwrite ? null : opened.table.store().newIndexFileHandler());
            }
        }
        return new RowBuckets(RowKeys.install(opened.write), dynamic, maintained, assigning && !opened.assignsBuckets());
    }

    /**
     * Whether the rows must come with their buckets: a dynamic-bucket or cross-partition table
     * written by one of several channels, whose buckets an assigner picked ({@link GovernedAssigner}).
     */
    boolean preAssigned() {
        return preAssigned;
    }

    /** Before a row with an assigned bucket goes to its writer: charges the writers' key hashes. */
    void beforeAssignedRow(BinaryRow partition, int bucket) {
        if (maintained != null) {
            maintained.beforeRow(partition, bucket);
        }
    }

    /** At prepareCommit, after Paimon's: drops idle partitions' indexes (stream) and counts the writers' hashes again. */
    void afterPrepare(boolean stream, long identifier, String commitUser) {
        if (dynamic != null && stream) {
            dynamic.prepareCommit(identifier, commitUser);
        }
        if (maintained != null) {
            maintained.afterPrepare();
        }
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
