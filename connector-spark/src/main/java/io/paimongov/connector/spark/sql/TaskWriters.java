package io.paimongov.connector.spark.sql;

import io.paimongov.connector.spark.write.GovernedPaimonWriter;
import io.paimongov.connector.spark.write.GovernedTaskWrite;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spark.SparkWriteAccumulators;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/**
 * The task side of the catalog's writes, batch and micro-batch alike: each write task runs one
 * {@link GovernedTaskWrite} (provider {@code spark}, Spark task memory, spill, kill and metrics,
 * the write's accumulators), opened on its first row, and hands its commit messages to the driver
 * as a {@link TaskMessages}.
 * An aborted task's write is closed, which deletes its new files; a task that got no rows opens
 * nothing and sends no messages.
 *
 * <p>The factory is immutable and serialized into the tasks; a writer is used by its task's thread.
 */
final class TaskWriters implements DataWriterFactory, StreamingDataWriterFactory {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final Map<String, String> governance;
    private final WriteChannels channels;
    private final boolean overwrite;
    private final CatalystToPaimon rows;
    private final SparkWriteAccumulators accumulators;

    TaskWriters(
            FileStoreTable table,
            Map<String, String> governance,
            WriteChannels channels,
            boolean overwrite,
            SparkWriteAccumulators accumulators) {
        this.table = table;
        this.governance = governance;
        this.channels = channels;
        this.overwrite = overwrite;
        this.rows = CatalystToPaimon.of(table.rowType());
        this.accumulators = accumulators;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        return new Writer();
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
        return new Writer();
    }

    /** The commit messages of one task, serialized with Paimon's serializer. */
    record TaskMessages(byte[] messages) implements WriterCommitMessage {

        /** Every message of {@code results} (Spark passes null for tasks that sent none). */
        static List<CommitMessage> all(WriterCommitMessage[] results) {
            List<CommitMessage> all = new ArrayList<>();
            for (WriterCommitMessage result : results) {
                if (result != null) {
                    try {
                        all.addAll(GovernedPaimonWriter.deserialize(((TaskMessages) result).messages));
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot read a write task's commit messages", e);
                    }
                }
            }
            return all;
        }
    }

    private final class Writer implements DataWriter<InternalRow> {
        private GovernedTaskWrite write;

        @Override
        public void write(InternalRow row) throws IOException {
            io(() -> {
                if (write == null) {
                    write = GovernedTaskWrite.open(table, governance, channels, overwrite, accumulators);
                }
                write.write(rows.toPaimon(row));
                return null;
            });
        }

        @Override
        public WriterCommitMessage commit() throws IOException {
            return io(() -> new TaskMessages(GovernedPaimonWriter.serialize(write == null ? List.of() : write.handOff())));
        }

        @Override
        public void abort() throws IOException {
            close();
        }

        @Override
        public void close() throws IOException {
            if (write != null) {
                io(() -> {
                    write.close();
                    return null;
                });
            }
        }
    }

    @FunctionalInterface
    private interface Step<T> {
        T run() throws Exception;
    }

    /** Runs {@code step}; Spark's writer methods declare {@link IOException}, so other checked exceptions become its cause. */
    private static <T> T io(Step<T> step) throws IOException {
        try {
            return step.run();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
