package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.data.InternalRow;

/**
 * Sends every row of one (partition, bucket) to the same writer subtask: two writers of one
 * primary-key bucket would each number their rows from the same sequence, and the merge could then
 * keep the wrong version of a key.
 *
 * <p>The key is a hash of the row's partition and bucket, computed with the table's own bucket
 * function; the partitioner maps it onto the writer subtasks. Both run on Flink's task threads,
 * each instance on one thread.
 */
final class BucketRouting {

    private BucketRouting() {}

    /** The (partition, bucket) hash of an element. */
    static final class BucketKey<T> implements KeySelector<T, Integer> {
        private static final long serialVersionUID = 1L;

        private final FileStoreTable table;
        private final RowConverter<T> converter;
        private transient KeyAndBucketExtractor<InternalRow> extractor;

        BucketKey(FileStoreTable table, RowConverter<T> converter) {
            this.table = table;
            this.converter = converter;
        }

        @Override
        public Integer getKey(T element) {
            if (extractor == null) {
                extractor = table.createRowKeyExtractor();
            }
            extractor.setRecord(converter.toRow(element));
            BinaryRow partition = extractor.partition();
            return 31 * partition.hashCode() + extractor.bucket();
        }
    }

    /** Spreads bucket hashes over the writer subtasks. */
    static final class ToWriter implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int writers) {
            return Math.floorMod(key, writers);
        }
    }
}
