package io.paimongov.connector.spark.write;

import io.paimongov.runtime.write.GovernedAssigner;
import io.paimongov.runtime.write.WriteChannels;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.TaskCompletionListener;
import scala.Tuple2;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * The assigner stage of a {@link ChannelJob} over a dynamic-bucket or cross-partition update table:
 * one {@link GovernedAssigner} per task (its memory from the same Spark task, provider {@code
 * spark}), opened on the task's first row and closed when the rows run out (or by the task's end);
 * each row leaves with its bucket, keyed by the channel of its writer.
 *
 * <p>The step is applied as an order-sensitive {@code mapPartitionsWithIndex}: the bucket a new key
 * gets depends on the order the task's rows arrive in, so its output is {@code INDETERMINATE} to
 * Spark's scheduler, which then reruns the whole stage, never part of it (see {@link ChannelJob}).
 *
 * <p><b>Thread-safety:</b> immutable, serialized into the assigner tasks; each task's iterator is
 * used by the task's thread.
 *
 * @param <T> the input's row type
 */
final class AssignStep<T>
        extends AbstractFunction2<Object, scala.collection.Iterator<T>, scala.collection.Iterator<Tuple2<Integer, AssignStep.Row>>>
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** A row with the bucket its assigner picked, as Paimon's binary row (its row kind kept). */
    record Row(int bucket, byte[] row) implements Serializable {}

    private final FileStoreTable table;
    private final Map<String, String> governance;
    private final WriteChannels channels;
    private final boolean overwrite;
    private final ChannelJob.Rows<T> rows;

    private AssignStep(
            FileStoreTable table, Map<String, String> governance, WriteChannels channels, boolean overwrite, ChannelJob.Rows<T> rows) {
        this.table = table;
        this.governance = governance;
        this.channels = channels;
        this.overwrite = overwrite;
        this.rows = rows;
    }

    /**
     * The assigned rows of {@code byChannel} (rows partitioned by their assigner channel), keyed by
     * their writer channel. {@code RDD.mapPartitionsWithIndex(f, preservesPartitioning,
     * isOrderSensitive)} is {@code private[spark]} in Scala and public in bytecode (Spark 4.0.4);
     * Spark's own order-sensitive steps (a round-robin repartition) mark their output the same way.
     */
    static <T> RDD<Tuple2<Integer, Row>> over(
            RDD<T> byChannel,
            FileStoreTable table,
            Map<String, String> governance,
            WriteChannels channels,
            boolean overwrite,
            ChannelJob.Rows<T> rows) {
        return byChannel.mapPartitionsWithIndex(
                new AssignStep<>(table, governance, channels, overwrite, rows), false, true, ClassTag$.MODULE$.apply(Tuple2.class));
    }

    @Override
    public scala.collection.Iterator<Tuple2<Integer, Row>> apply(Object partition, scala.collection.Iterator<T> input) {
        try {
            return ScalaIterators.asScala(assign(ScalaIterators.asJava(input)));
        } catch (Exception e) {
            throw ChannelJob.<RuntimeException>sneaky(e);
        }
    }

    private Iterator<Tuple2<Integer, Row>> assign(Iterator<T> input) throws Exception {
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
        ArrayDeque<Tuple2<Integer, Row>> out = new ArrayDeque<>();
        GovernedAssigner.Output emit = (row, bucket) -> {
            keys.setRecord(row);
            byte[] bytes = SerializationUtils.serializeBinaryRow(binary.toBinaryRow(row));
            out.add(new Tuple2<>(channels.writerChannel(keys.partition(), bucket), new Row(bucket, bytes)));
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
            public Tuple2<Integer, Row> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return out.poll();
            }
        };
    }
}
