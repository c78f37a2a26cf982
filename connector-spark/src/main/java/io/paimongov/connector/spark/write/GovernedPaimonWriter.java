package io.paimongov.connector.spark.write;

import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.io.DataOutputSerializer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.spark.TaskContext;

/**
 * The drop-in for Spark jobs: each task writes its partition's rows through a governed write on
 * Spark task memory and returns the commit messages as bytes; the driver collects them and commits
 * once.
 *
 * <pre>{@code
 * SparkWriteAccumulators metrics = SparkWriteAccumulators.register(spark.sparkContext());
 * List<byte[]> messages = rdd.mapPartitions(rows -> List.of(GovernedPaimonWriter.writePartition(
 *         toPaimonRows(rows), tableLocation, governance, metrics)).iterator()).collect();
 * GovernedPaimonWriter.commit(table, messages);
 * long spilled = metrics.value(SparkWriteAccumulators.Field.SPILL_BYTES);
 * }</pre>
 *
 * <p>In the task: a {@link GovernedTaskWrite} is opened with provider {@code spark} and the task's
 * {@link TaskContext}, fed every row, prepared and handed off, then closed; a task completion
 * listener closes it should the task end first (a failure in the row iterator, a kill), which
 * deletes its new files and its spill scope and gives its memory back. The write is one channel of
 * its own ({@link WriteChannels#single}): the caller routes rows so that no two tasks write one key.
 * Nothing is visible until the driver commits; a failed task's output is never committed. Files of a
 * task that handed off but whose result the driver never commits (a lost speculative attempt) stay
 * until Paimon's orphan-file cleanup.
 *
 * <p><b>Thread-safety:</b> stateless; {@link #writePartition} runs on a task thread, {@link
 * #commit} on the driver. <b>May throw:</b> what the write throws ({@code
 * ResourceExhaustedException}, {@code WriteCancelledException}, I/O errors), unchanged, so Spark
 * fails or retries the task.
 */
public final class GovernedPaimonWriter {

    private GovernedPaimonWriter() {}

    /**
     * Writes {@code rows} to the table at {@code tableLocation} inside the current Spark task; the
     * write reports to Spark's task metrics and its log line.
     *
     * @param governance {@code governance.*} options (budget, page size, ...); the provider is
     *     always {@code spark}
     * @return the commit messages, serialized; give them to {@link #commit}
     * @throws IllegalStateException when not called inside a Spark task
     */
    public static byte[] writePartition(Iterator<InternalRow> rows, String tableLocation, Map<String, String> governance)
            throws Exception {
        return write(rows, tableLocation, governance, null);
    }

    /**
     * {@link #writePartition(Iterator, String, Map)} that also adds the write's final snapshot to
     * {@code accumulators}, which the driver registered for the job ({@link
     * SparkWriteAccumulators#register}) and the task's function captured.
     */
    public static byte[] writePartition(
            Iterator<InternalRow> rows, String tableLocation, Map<String, String> governance, SparkWriteAccumulators accumulators)
            throws Exception {
        return write(rows, tableLocation, governance, Objects.requireNonNull(accumulators, "accumulators"));
    }

    private static byte[] write(
            Iterator<InternalRow> rows, String tableLocation, Map<String, String> governance, SparkWriteAccumulators accumulators)
            throws Exception {
        FileStoreTable table = load(tableLocation);
        WriteChannels channels = WriteChannels.single(table);
        try (GovernedTaskWrite write = GovernedTaskWrite.open(table, governance, channels, false, accumulators)) {
            while (rows.hasNext()) {
                write.write(rows.next());
            }
            return serialize(write.handOff());
        }
    }

    /** Commits the messages every task returned, as one snapshot. Runs on the driver. */
    public static void commit(FileStoreTable table, List<byte[]> taskMessages) throws Exception {
        List<CommitMessage> all = new ArrayList<>();
        for (byte[] bytes : taskMessages) {
            all.addAll(deserialize(bytes));
        }
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(all);
        }
    }

    /** The table at {@code location}, on the file system its scheme names. */
    public static FileStoreTable load(String location) {
        Path path = new Path(location);
        try {
            return FileStoreTableFactory.create(FileIO.get(path, CatalogContext.create(new org.apache.paimon.options.Options())), path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the Paimon table at " + location, e);
        }
    }

    /** {@code messages} as bytes (Paimon's {@code CommitMessageSerializer}: its version, then the list). */
    public static byte[] serialize(List<CommitMessage> messages) throws IOException {
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(serializer.getVersion());
        serializer.serializeList(messages, out);
        return out.getCopyOfBuffer();
    }

    /** The messages {@link #serialize} made. */
    public static List<CommitMessage> deserialize(byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        int version = in.readInt();
        return new CommitMessageSerializer().deserializeList(version, in);
    }
}
