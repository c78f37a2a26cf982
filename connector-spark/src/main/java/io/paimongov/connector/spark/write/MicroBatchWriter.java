package io.paimongov.connector.spark.write;

import io.paimongov.connector.spark.write.GovernedStreamingWriter.BatchFaults;
import io.paimongov.runtime.write.WriteChannels;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * The function {@link GovernedStreamingWriter#foreachBatch} returns: one micro-batch = route, write
 * in tasks, commit once on the driver (contract there).
 *
 * <p>Routing: rows of a keyed table are keyed by their channel of {@link WriteChannels} (Paimon's
 * own channel of the row: fixed bucket, dynamic-bucket assigner, cross-partition assigner, postpone
 * spread) and partitioned by it, so task {@code c} writes exactly channel {@code c}; a
 * bucket-unaware append table is written where its rows are.
 *
 * <p>How: the job runs through {@code SparkContext.runJob} with a result handler rather than {@code
 * collect}, so the driver holds the messages of every task that finished even when another task
 * fails the job, and can abort them. The messages are kept serialized until the commit; Paimon's
 * filter, not anything of ours, decides whether the micro-batch was committed before.
 */
final class MicroBatchWriter implements VoidFunction2<Dataset<Row>, Long> {

    private static final long serialVersionUID = 1L;

    private final String location;
    private final Map<String, String> governance;
    private final String commitUser;
    private final int parallelism;
    private final BatchFaults faults;

    MicroBatchWriter(String location, Map<String, String> governance, String commitUser, int parallelism, BatchFaults faults) {
        this.location = location;
        this.governance = governance;
        this.commitUser = commitUser;
        this.parallelism = parallelism;
        this.faults = faults;
    }

    @Override
    public void call(Dataset<Row> batch, Long batchId) throws Exception {
        SparkContext spark = batch.sparkSession().sparkContext();
        String user = commitUser(spark);
        FileStoreTable table = GovernedStreamingWriter.open(location);
        SparkRows rows = SparkRows.of(batch.schema(), table.rowType());
        WriteChannels channels = WriteChannels.of(table, parallelism > 0 ? parallelism : spark.defaultParallelism());
        // An Integer key below the partition count is its own HashPartitioner partition.
        RDD<Row> input = channels.keyed()
                ? batch.javaRDD()
                        .mapPartitionsToPair(new ChannelKeys(rows, channels))
                        .partitionBy(new HashPartitioner(channels.count()))
                        .values()
                        .rdd()
                : batch.rdd();
        List<byte[]> finished = new ArrayList<>();
        try {
            spark.runJob(input, new WriteTask(location, rows, governance, channels, faults, batchId), new AbstractFunction2<Object, byte[], BoxedUnit>() {
                @Override
                public BoxedUnit apply(Object partition, byte[] messages) {
                    synchronized (finished) {
                        finished.add(messages);
                    }
                    return BoxedUnit.UNIT;
                }
            }, ClassTag$.MODULE$.apply(byte[].class));
            faults.beforeCommit(batchId);
        } catch (Throwable e) {
            synchronized (finished) {
                abortQuietly(table, user, finished, e);
            }
            throw e;
        }
        EpochCommits.commit(table, user, batchId, messages(finished));
    }

    private static void abortQuietly(FileStoreTable table, String user, List<byte[]> finished, Throwable cause) {
        try {
            EpochCommits.abort(table, user, messages(finished));
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    private static List<CommitMessage> messages(List<byte[]> serialized) throws java.io.IOException {
        List<CommitMessage> all = new ArrayList<>();
        for (byte[] bytes : serialized) {
            all.addAll(GovernedPaimonWriter.deserialize(bytes));
        }
        return all;
    }

    private String commitUser(SparkContext spark) {
        if (commitUser != null) {
            return commitUser;
        }
        String queryId = spark.getLocalProperty(GovernedStreamingWriter.QUERY_ID_PROPERTY);
        if (queryId == null) {
            throw new IllegalStateException("no streaming query id: the Spark local property '" + GovernedStreamingWriter.QUERY_ID_PROPERTY
                    + "' is not set on this thread; call the function from DataStreamWriter.foreachBatch, or set '"
                    + GovernedStreamingWriter.COMMIT_USER + "'");
        }
        return EpochCommits.commitUser(queryId);
    }

    /** Map side: each row keyed by its write channel, so one task gets every row of a channel. */
    private static final class ChannelKeys implements PairFlatMapFunction<Iterator<Row>, Integer, Row> {
        private static final long serialVersionUID = 1L;
        private final SparkRows rows;
        private final WriteChannels channels;

        ChannelKeys(SparkRows rows, WriteChannels channels) {
            this.rows = rows;
            this.channels = channels;
        }

        @Override
        public Iterator<Tuple2<Integer, Row>> call(Iterator<Row> input) {
            WriteChannels.Router router = channels.router();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return input.hasNext();
                }

                @Override
                public Tuple2<Integer, Row> next() {
                    Row row = input.next();
                    return new Tuple2<>(router.channel(rows.toPaimon(row)), row);
                }
            };
        }
    }

    /** Reduce side: the task's rows through the governed write; returns its serialized messages. */
    private static final class WriteTask extends AbstractFunction2<TaskContext, scala.collection.Iterator<Row>, byte[]>
            implements Serializable {
        private static final long serialVersionUID = 1L;
        private final String location;
        private final SparkRows rows;
        private final Map<String, String> governance;
        private final WriteChannels channels;
        private final BatchFaults faults;
        private final long batchId;

        WriteTask(String location, SparkRows rows, Map<String, String> governance, WriteChannels channels, BatchFaults faults,
                long batchId) {
            this.location = location;
            this.rows = rows;
            this.governance = governance;
            this.channels = channels;
            this.faults = faults;
            this.batchId = batchId;
        }

        @Override
        public byte[] apply(TaskContext task, scala.collection.Iterator<Row> input) {
            try {
                faults.inTask(batchId, task.partitionId());
                Iterator<Row> source = CollectionConverters.asJava(input);
                if (!source.hasNext()) {
                    return GovernedPaimonWriter.serialize(List.of());
                }
                try (GovernedTaskWrite write = GovernedTaskWrite.open(GovernedPaimonWriter.load(location), governance, channels, false)) {
                    while (source.hasNext()) {
                        write.write(rows.toPaimon(source.next()));
                    }
                    return GovernedPaimonWriter.serialize(write.handOff());
                }
            } catch (Exception e) {
                throw MicroBatchWriter.<RuntimeException>sneaky(e);
            }
        }
    }

    /** Rethrows {@code e} unchanged from a Scala function, which declares no checked exceptions: Spark reports the task's own error. */
    @SuppressWarnings("unchecked")
    private static <E extends Exception> E sneaky(Exception e) throws E {
        throw (E) e;
    }
}
