package io.paimongov.connector.flink.sink;

import io.paimongov.runtime.write.WriteChannels;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;

/**
 * Sends the rows of one table to the writer (or assigner) subtasks as Paimon's own sinks do ({@link
 * WriteChannels}): every (partition, bucket) to one writer; for dynamic buckets and cross-partition
 * update first every key to the assigner that owns it ({@link ChannelKey}), then every assigned row
 * to the writer of its (partition, bucket) ({@link AssignedKey}). The key is the row's channel value
 * for as many channels as the next operator has subtasks; the partitioner maps value {@code c} to
 * subtask {@code c}.
 *
 * <p>Both run on Flink's task threads, each instance on one thread.
 */
final class ChannelRouting {

    private ChannelRouting() {}

    /** The channel value of an element. */
    static final class ChannelKey<T> implements KeySelector<T, Integer> {
        private static final long serialVersionUID = 1L;

        private final WriteChannels channels;
        private final RowConverter<T> converter;
        private transient WriteChannels.Router router;

        ChannelKey(WriteChannels channels, RowConverter<T> converter) {
            this.channels = channels;
            this.converter = converter;
        }

        @Override
        public Integer getKey(T element) {
            if (router == null) {
                router = channels.router();
            }
            return router.channel(converter.toRow(element));
        }
    }

    /** The writer channel of an assigned row: its (partition, bucket), as Paimon's writer shuffle. */
    static final class AssignedKey implements KeySelector<Tuple2<InternalRow, Integer>, Integer> {
        private static final long serialVersionUID = 1L;

        private final FileStoreTable table;
        private final WriteChannels channels;
        private transient RowKeyExtractor keys;

        AssignedKey(FileStoreTable table, WriteChannels channels) {
            this.table = table;
            this.channels = channels;
        }

        @Override
        public Integer getKey(Tuple2<InternalRow, Integer> assigned) {
            if (keys == null) {
                keys = table.createRowKeyExtractor();
            }
            keys.setRecord(assigned.f0);
            return channels.writerChannel(keys.partition(), assigned.f1);
        }
    }

    /**
     * Value {@code c} to subtask {@code c}: the writers are as many as the channels. Should Flink
     * ever offer fewer, a subtask takes several values, which a governed write serves.
     */
    static final class ToWriter implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer channel, int writers) {
            return channel % writers;
        }
    }
}
