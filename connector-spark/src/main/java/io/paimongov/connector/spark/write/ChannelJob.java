package io.paimongov.connector.spark.write;

import io.paimongov.runtime.write.GovernedAssigner;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.rdd.RDD;
import scala.Tuple2;
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
 *       ({@link AssignStep}) picks each row's bucket (and, for a key that moved partitions, the
 *       retraction of its old row); then to the writer of the (partition, bucket), which writes the
 *       row with its bucket.
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
 * <p>Stage retries of the two-shuffle write. Which bucket an assigner gives a new key depends on
 * the order its rows arrive (and on the table's index when it opens), and Spark delivers a
 * shuffle's rows in no fixed order: a rerun assigner task may send a key to another bucket and
 * another writer. Spark 4.0.4 reruns only the lost map tasks of a stage whose output it thinks
 * merely unordered, and only the unfinished tasks of the stage after it, so a rerun could write a
 * key into two buckets, or route rows to a writer that had already finished (lost rows). Two
 * measures close this, both needed on 4.0.4:
 *
 * <ol>
 *   <li>The assign step is an order-sensitive {@code mapPartitionsWithIndex} ({@code
 *       isOrderSensitive = true}, public in bytecode, {@code private[spark]} in Scala), so its
 *       output is {@code INDETERMINATE}. Then the DAGScheduler reruns every assigner task on any
 *       retry of that stage (it unregisters all its map outputs), ignores map outputs of older
 *       attempts of it, and fails the job when a fetch failure of the assigned rows comes after a
 *       write task (a result task) finished, since it cannot roll a result stage back.
 *   <li>It still accepts the result of a write task of an older stage attempt that ends after the
 *       assigners were rerun (a zombie task: Spark does not kill the running tasks of a stage that
 *       failed on a fetch), computed from the old assignment, and runs only the other partitions
 *       from the new one. So each write task reports its stage attempt, and a job whose results
 *       come from more than one attempt is failed here: its files are deleted, nothing is
 *       committed. A job whose write tasks all ran in one attempt read one run of the assigners.
 * </ol>
 *
 * <p>Sorting each assigner's rows would not make the assignment repeatable by itself (the index an
 * assigner opens from is the table's latest snapshot, which another writer may change between
 * two runs), and failing on any write task of a later stage attempt would give up the retries
 * Spark can make safely (a fetch failure before any write task finished). A write of a table
 * without assigners is routed by a fixed function of the row, so its retries need neither.
 *
 * <p><b>Thread-safety:</b> immutable; {@link #run} is called on the driver, the functions it ships
 * run in tasks. <b>May throw:</b> what the job throws (a task's error, unchanged as its cause);
 * {@link IllegalStateException} for a two-shuffle job whose write tasks ran in several stage
 * attempts.
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
        TaskHook NONE = task -> {};

        void beforeWrite(TaskContext task) throws Exception;
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
        return write(input.sparkContext(), route(input), hook);
    }

    /** Whether rows go through assigner tasks: a second shuffle, the one whose retries need care. */
    boolean assigned() {
        return channels.assignerStage();
    }

    /** The RDD the write tasks read: {@code input}, or its rows routed to their channels (through assigners). */
    RDD<?> route(RDD<T> input) {
        if (!channels.keyed()) {
            return input;
        }
        JavaRDD<T> byChannel = input.toJavaRDD()
                .mapPartitionsToPair(new ChannelKeys<>(rows, channels))
                .partitionBy(new HashPartitioner(channels.count()))
                .values();
        if (!assigned()) {
            return byChannel.rdd();
        }
        RDD<Tuple2<Integer, AssignStep.Row>> assignedRows = AssignStep.over(byChannel.rdd(), table, governance, channels, overwrite, rows);
        return JavaPairRDD.fromRDD(assignedRows, ClassTag$.MODULE$.apply(Integer.class), ClassTag$.MODULE$.apply(AssignStep.Row.class))
                .partitionBy(new HashPartitioner(channels.count()))
                .values()
                .rdd();
    }

    /** Runs the write tasks over {@code routed} ({@link #route}); the messages of every task. */
    List<CommitMessage> write(SparkContext spark, RDD<?> routed, TaskHook hook) throws Exception {
        boolean assigned = assigned();
        List<Written> finished = Collections.synchronizedList(new ArrayList<>());
        try {
            @SuppressWarnings("unchecked")
            RDD<Object> job = (RDD<Object>) routed;
            spark.runJob(job, new WriteTask(hook, assigned), new AbstractFunction2<Object, Written, BoxedUnit>() {
                @Override
                public BoxedUnit apply(Object partition, Written written) {
                    finished.add(written);
                    return BoxedUnit.UNIT;
                }
            }, ClassTag$.MODULE$.apply(Written.class));
        } catch (Throwable e) {
            abortQuietly(table, finished, e);
            throw e;
        }
        Set<Integer> attempts = new TreeSet<>();
        finished.forEach(w -> attempts.add(w.stageAttempt()));
        if (assigned && attempts.size() > 1) {
            IllegalStateException mixed = new IllegalStateException("the write to " + table.fullName() + " is not committed: after"
                    + " a shuffle fetch failure Spark ran its write tasks in stage attempts " + attempts + ", over rows that"
                    + " different runs of the assigner tasks assigned to buckets (a key could be in two buckets); the"
                    + " written files were deleted, run the write again");
            abortQuietly(table, finished, mixed);
            throw mixed;
        }
        return messages(finished);
    }

    /** Deletes the files of the tasks that finished: the job failed, nothing was committed. */
    private static void abortQuietly(FileStoreTable table, List<Written> finished, Throwable cause) {
        try {
            synchronized (finished) {
                MessageFiles.delete(table, messages(finished));
            }
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    private static List<CommitMessage> messages(List<Written> finished) throws IOException {
        List<CommitMessage> all = new ArrayList<>();
        for (Written written : finished) {
            all.addAll(GovernedPaimonWriter.deserialize(written.messages()));
        }
        return all;
    }

    /** A write task's result: the stage attempt it ran in and its serialized commit messages. */
    private record Written(int stageAttempt, byte[] messages) implements Serializable {}

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

    /** Writer side: the task's rows through one governed write; returns its serialized messages. */
    private final class WriteTask extends AbstractFunction2<TaskContext, scala.collection.Iterator<Object>, Written>
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
        public Written apply(TaskContext task, scala.collection.Iterator<Object> input) {
            try {
                hook.beforeWrite(task);
                Iterator<Object> source = ScalaIterators.asJava(input);
                if (!source.hasNext()) {
                    return new Written(task.stageAttemptNumber(), GovernedPaimonWriter.serialize(List.of()));
                }
                try (GovernedTaskWrite write = GovernedTaskWrite.open(table, governance, channels, overwrite, accumulators)) {
                    while (source.hasNext()) {
                        Object next = source.next();
                        if (assigned) {
                            AssignStep.Row row = (AssignStep.Row) next;
                            write.write(SerializationUtils.deserializeBinaryRow(row.row()), row.bucket());
                        } else {
                            write.write(rows.toPaimon((T) next));
                        }
                    }
                    return new Written(task.stageAttemptNumber(), GovernedPaimonWriter.serialize(write.handOff()));
                }
            } catch (Exception e) {
                throw ChannelJob.<RuntimeException>sneaky(e);
            }
        }
    }

    /** Rethrows {@code e} unchanged from a function that declares no checked exceptions: Spark reports the task's own error. */
    @SuppressWarnings("unchecked")
    static <E extends Exception> E sneaky(Exception e) throws E {
        throw (E) e;
    }
}
