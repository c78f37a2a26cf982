package io.paimongov.connector.spark.write;

import io.paimongov.runtime.write.GovernedAssigner;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.TaskCompletionListener;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * One write of a table as a Spark job over an RDD of rows, routed as Paimon's own connectors route
 * them ({@link WriteChannels}) and written by one {@link GovernedTaskWrite} per write task; the
 * caller commits the messages it returns, on the driver.
 *
 * <ul>
 *   <li>bucket-unaware append table: each partition of the input is written where it is;
 *   <li>fixed buckets, postpone bucket, or one channel: rows are keyed by their channel and
 *       partitioned by it, so write task {@code c} gets exactly channel {@code c};
 *   <li>dynamic buckets and cross-partition update over several channels: two shuffles, as Paimon's
 *       sinks: to an assigner task by the row's assigner channel, where a {@link GovernedAssigner}
 *       (its memory from the same Spark task, provider {@code spark}) picks each row's bucket (and,
 *       for a key that moved partitions, the retraction of its old row); then to the writer of the
 *       (partition, bucket), which writes the row with its bucket.
 * </ul>
 *
 * <p>Every write task's governed write adds its final snapshot to the job's {@link
 * SparkWriteAccumulators} (shipped with the write function only: assigner tasks report to Spark's
 * task metrics and their log line, not to the accumulators, so that each row counts once).
 *
 * <p>The job runs through {@code SparkContext.runJob} with a result handler, so the driver holds
 * the messages of every write task that finished even when another task fails the job: they are
 * aborted (their files deleted) before the error is rethrown. Assigned rows cross the second
 * shuffle as Paimon binary rows (which keep their row kind).
 *
 * <p><b>Thread-safety:</b> immutable; {@link #run} is called on the driver, the functions it ships
 * run in tasks. <b>May throw:</b> what the job throws (a task's error, unchanged as its cause).
 *
 * @param <T> the input's row type
 */
public final class ChannelJob<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The conversion of an input row into a Paimon row of the table; serialized into the tasks. */
    @FunctionalInterface
    public interface Rows<T> extends Serializable {
        InternalRow toPaimon(T row);
    }

    /** Called in every write task before it writes (a test seam for failures). */
    @FunctionalInterface
    interface TaskHook extends Serializable {
        TaskHook NONE = partition -> {};

        void beforeWrite(int partition) throws Exception;
    }

    private final FileStoreTable table;
    private final Map<String, String> governance;
    private final WriteChannels channels;
    private final boolean overwrite;
    private final Rows<T> rows;
    private final SparkWriteAccumulators accumulators;

    private ChannelJob(
            FileStoreTable table,
            Map<String, String> governance,
            WriteChannels channels,
            boolean overwrite,
            Rows<T> rows,
            SparkWriteAccumulators accumulators) {
        this.table = table;
        this.governance = governance;
        this.channels = channels;
        this.overwrite = overwrite;
        this.rows = rows;
        this.accumulators = accumulators;
    }

    /**
     * A write of {@code table} over {@code channels}.
     *
     * @param governance {@code governance.*} options of every task's write and assigner (the provider
     *     is always {@code spark})
     * @param overwrite whether the rows are the data of an overwrite (the committer overwrites)
     * @param accumulators registered on the driver for this write job (see {@link
     *     SparkWriteAccumulators#register}); every write task adds its write's final snapshot
     */
    public static <T> ChannelJob<T> of(
            FileStoreTable table,
            Map<String, String> governance,
            WriteChannels channels,
            boolean overwrite,
            Rows<T> rows,
            SparkWriteAccumulators accumulators) {
        Objects.requireNonNull(accumulators, "accumulators");
        return new ChannelJob<>(table, Map.copyOf(governance), channels, overwrite, rows, accumulators);
    }

    /** Runs the job over {@code input}; the commit messages of every write task, for the caller to commit. */
    public List<CommitMessage> run(RDD<T> input) throws Exception {
        return run(input, TaskHook.NONE);
    }

    List<CommitMessage> run(RDD<T> input, TaskHook hook) throws Exception {
        boolean assigned = channels.assigned() && channels.count() > 1;
        RDD<?> routed;
        AbstractFunction2<TaskContext, scala.collection.Iterator<Object>, byte[]> write;
        if (!channels.keyed()) {
            routed = input;
            write = new WriteTask(hook, false);
        } else {
            JavaRDD<T> byChannel = input.toJavaRDD()
                    .mapPartitionsToPair(new ChannelKeys<>(rows, channels))
                    .partitionBy(new HashPartitioner(channels.count()))
                    .values();
            routed = assigned
                    ? byChannel.mapPartitionsToPair(new Assign<>(table, governance, channels, overwrite, rows))
                            .partitionBy(new HashPartitioner(channels.count()))
                            .values()
                            .rdd()
                    : byChannel.rdd();
            write = new WriteTask(hook, assigned);
        }
        List<byte[]> finished = Collections.synchronizedList(new ArrayList<>());
        SparkContext spark = input.sparkContext();
        try {
            @SuppressWarnings("unchecked")
            RDD<Object> job = (RDD<Object>) routed;
            spark.runJob(job, write, new AbstractFunction2<Object, byte[], BoxedUnit>() {
                @Override
                public BoxedUnit apply(Object partition, byte[] messages) {
                    finished.add(messages);
                    return BoxedUnit.UNIT;
                }
            }, ClassTag$.MODULE$.apply(byte[].class));
        } catch (Throwable e) {
            abortQuietly(table, finished, e);
            throw e;
        }
        return messages(finished);
    }

    /** Deletes the files of the tasks that finished: the job failed, nothing was committed. */
    private static void abortQuietly(FileStoreTable table, List<byte[]> finished, Throwable cause) {
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            synchronized (finished) {
                commit.abort(messages(finished));
            }
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    private static List<CommitMessage> messages(List<byte[]> serialized) throws IOException {
        List<CommitMessage> all = new ArrayList<>();
        for (byte[] bytes : serialized) {
            all.addAll(GovernedPaimonWriter.deserialize(bytes));
        }
        return all;
    }

    /** A row with the bucket its assigner picked, as Paimon's binary row (its row kind kept). */
    private record AssignedRow(int bucket, byte[] row) implements Serializable {}

    /** Map side: each row keyed by its channel (its assigner's, for assigned tables). */
    private static final class ChannelKeys<T> implements PairFlatMapFunction<Iterator<T>, Integer, T> {
        private static final long serialVersionUID = 1L;
        private final Rows<T> rows;
        private final WriteChannels channels;

        ChannelKeys(Rows<T> rows, WriteChannels channels) {
            this.rows = rows;
            this.channels = channels;
        }

        @Override
        public Iterator<Tuple2<Integer, T>> call(Iterator<T> input) {
            WriteChannels.Router router = channels.router();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return input.hasNext();
                }

                @Override
                public Tuple2<Integer, T> next() {
                    T row = input.next();
                    return new Tuple2<>(router.channel(rows.toPaimon(row)), row);
                }
            };
        }
    }

    /**
     * Assigner side: one {@link GovernedAssigner} per task, opened on the first row and closed when
     * the rows run out (or by the task's end); each row leaves keyed by its writer channel.
     */
    private static final class Assign<T> implements PairFlatMapFunction<Iterator<T>, Integer, AssignedRow> {
        private static final long serialVersionUID = 1L;
        private final FileStoreTable table;
        private final Map<String, String> governance;
        private final WriteChannels channels;
        private final boolean overwrite;
        private final Rows<T> rows;

        Assign(FileStoreTable table, Map<String, String> governance, WriteChannels channels, boolean overwrite, Rows<T> rows) {
            this.table = table;
            this.governance = governance;
            this.channels = channels;
            this.overwrite = overwrite;
            this.rows = rows;
        }

        @Override
        public Iterator<Tuple2<Integer, AssignedRow>> call(Iterator<T> input) throws Exception {
            if (!input.hasNext()) {
                return Collections.emptyIterator();
            }
            TaskContext task = GovernedTaskWrite.currentTask();
            // No accumulators: the rows count as written by the write tasks, not as assigned.
            GovernedAssigner assigner = GovernedAssigner.open(
                    table, GovernedTaskWrite.context(task, "assigner", governance, null), channels, overwrite);
            task.addTaskCompletionListener((TaskCompletionListener) ended -> GovernedTaskWrite.closeQuietly(assigner));
            RowKeyExtractor keys = table.createRowKeyExtractor();
            InternalRowSerializer binary = new InternalRowSerializer(table.rowType());
            ArrayDeque<Tuple2<Integer, AssignedRow>> out = new ArrayDeque<>();
            GovernedAssigner.Output emit = (row, bucket) -> {
                keys.setRecord(row);
                byte[] bytes = SerializationUtils.serializeBinaryRow(binary.toBinaryRow(row));
                out.add(new Tuple2<>(channels.writerChannel(keys.partition(), bucket), new AssignedRow(bucket, bytes)));
            };
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    try {
                        while (out.isEmpty() && input.hasNext()) {
                            assigner.assign(rows.toPaimon(input.next()), emit);
                        }
                        if (out.isEmpty()) {
                            assigner.close();
                            return false;
                        }
                        return true;
                    } catch (Exception e) {
                        throw ChannelJob.<RuntimeException>sneaky(e);
                    }
                }

                @Override
                public Tuple2<Integer, AssignedRow> next() {
                    if (!hasNext()) {
                        throw new java.util.NoSuchElementException();
                    }
                    return out.poll();
                }
            };
        }
    }

    /** Writer side: the task's rows through one governed write; returns its serialized messages. */
    private final class WriteTask extends AbstractFunction2<TaskContext, scala.collection.Iterator<Object>, byte[]>
            implements Serializable {
        private static final long serialVersionUID = 1L;
        private final TaskHook hook;
        private final boolean assigned;

        WriteTask(TaskHook hook, boolean assigned) {
            this.hook = hook;
            this.assigned = assigned;
        }

        @Override
        @SuppressWarnings("unchecked")
        public byte[] apply(TaskContext task, scala.collection.Iterator<Object> input) {
            try {
                hook.beforeWrite(task.partitionId());
                Iterator<Object> source = CollectionConverters.asJava(input);
                if (!source.hasNext()) {
                    return GovernedPaimonWriter.serialize(List.of());
                }
                try (GovernedTaskWrite write = GovernedTaskWrite.open(table, governance, channels, overwrite, accumulators)) {
                    while (source.hasNext()) {
                        Object next = source.next();
                        if (assigned) {
                            AssignedRow row = (AssignedRow) next;
                            write.write(SerializationUtils.deserializeBinaryRow(row.row()), row.bucket());
                        } else {
                            write.write(rows.toPaimon((T) next));
                        }
                    }
                    return GovernedPaimonWriter.serialize(write.handOff());
                }
            } catch (Exception e) {
                throw ChannelJob.<RuntimeException>sneaky(e);
            }
        }
    }

    /** Rethrows {@code e} unchanged from a function that declares no checked exceptions: Spark reports the task's own error. */
    @SuppressWarnings("unchecked")
    private static <E extends Exception> E sneaky(Exception e) throws E {
        throw (E) e;
    }
}
