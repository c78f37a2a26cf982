package io.paimongov.connector.spark.write;

import io.paimongov.spark.SparkGovernanceProvider;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
import org.apache.spark.util.TaskCompletionListener;

/**
 * The drop-in for Spark jobs: each task writes its partition's rows through a governed write on
 * Spark task memory and returns the commit messages as bytes; the driver collects them and commits
 * once.
 *
 * <pre>{@code
 * List<byte[]> messages = rdd.mapPartitions(rows -> List.of(GovernedPaimonWriter.writePartition(
 *         toPaimonRows(rows), tableLocation, governance)).iterator()).collect();
 * GovernedPaimonWriter.commit(table, messages);
 * }</pre>
 *
 * <p>In the task: the write is opened with provider {@code spark} and the task's {@link
 * TaskContext}, fed every row, prepared and handed off ({@code prepareCommit().handOff()}), then
 * closed; a task completion listener closes it should the task end first (a failure in the row
 * iterator, a kill), which deletes its new files and its spill scope and gives its memory back.
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
     * Writes {@code rows} to the table at {@code tableLocation} inside the current Spark task.
     *
     * @param governance {@code governance.*} options (budget, page size, ...); the provider is
     *     always {@code spark}
     * @return the commit messages, serialized; give them to {@link #commit}
     * @throws IllegalStateException when not called inside a Spark task
     */
    public static byte[] writePartition(Iterator<InternalRow> rows, String tableLocation, Map<String, String> governance)
            throws Exception {
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("GovernedPaimonWriter.writePartition runs inside a Spark task (TaskContext.get() is null)");
        }
        FileStoreTable table = load(tableLocation);
        GovernanceOptions options = GovernanceOptions.of(governance).with(GovernanceOptions.PROVIDER, SparkGovernanceProvider.NAME);
        String name = "spark-stage-" + task.stageId() + "-part-" + task.partitionId() + "-task-" + task.taskAttemptId();
        ResourceContext context = ResourceContext.open(
                name, new SparkGovernanceProvider(), options, EngineEnvironment.builder().with(TaskContext.class, task).build());
        GovernedTableWrite write = GovernedTableWrite.batch(table, context);
        task.addTaskCompletionListener((TaskCompletionListener) ended -> closeQuietly(write));
        try (write) {
            while (rows.hasNext()) {
                write.write(rows.next());
            }
            return serialize(write.prepareCommit().handOff());
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

    static byte[] serialize(List<CommitMessage> messages) throws IOException {
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(serializer.getVersion());
        serializer.serializeList(messages, out);
        return out.getCopyOfBuffer();
    }

    static List<CommitMessage> deserialize(byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        int version = in.readInt();
        return new CommitMessageSerializer().deserializeList(version, in);
    }

    /** A write already closed closes again harmlessly; a failing close must not mask the task's error. */
    private static void closeQuietly(GovernedTableWrite write) {
        try {
            write.close();
        } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(GovernedPaimonWriter.class).warn("closing the governed write at task end failed", e);
        }
    }
}
