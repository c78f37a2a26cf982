package io.paimongov.connector.flink.sink;

import io.paimongov.runtime.write.WriteChannels;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Sends the rows of one table to the writer subtasks as Paimon's own sinks do ({@link
 * WriteChannels}): every (partition, bucket) to one writer, dynamic-bucket keys to the writer that
 * runs their assigner, cross-partition keys to the writer that keeps their index. The key is the
 * row's channel value, computed with the table's own bucket function and assigner rules for as many
 * channels as the writer has subtasks; the partitioner maps value {@code c} to subtask {@code c}.
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
