package io.paimongov.connector.spark.read;

import io.paimongov.connector.spark.write.GovernedTaskWrite;
import io.paimongov.runtime.read.GovernedSplitReader;
import io.paimongov.runtime.read.GovernedTableRead;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;

/**
 * One split read by a governed read inside the current Spark task: a {@link ResourceContext} with
 * provider {@code spark} and the task's {@link TaskContext} (its memory from Spark's task memory
 * manager, as the task's writes take theirs, so that one task's reads and writes share its
 * memory; spill under Spark's local dirs; the task's kill), a {@link GovernedTableRead} of the
 * table on it and the split's reader. Closing gives everything back; a task completion listener
 * closes it should the task end first (a failure, a kill).
 *
 * <p><b>Thread-safety:</b> the task thread reads it; not thread-safe. <b>May throw:</b> what the
 * governed read throws ({@code ResourceExhaustedException}, {@code ReadCancelledException}, I/O
 * errors), so Spark fails or retries the task.
 */
public final class GovernedTaskRead implements org.apache.paimon.reader.RecordReader<InternalRow> {

    private final ResourceContext context;
    private final GovernedTableRead read;
    private final GovernedSplitReader reader;
    private boolean closed;

    private GovernedTaskRead(ResourceContext context, GovernedTableRead read, GovernedSplitReader reader) {
        this.context = context;
        this.read = read;
        this.reader = reader;
    }

    /**
     * Opens the read of {@code split} of {@code table} in the current task.
     *
     * @param governance {@code governance.*} options (budget, ...); the provider is always {@code spark}
     * @param projection the fields to read, as indexes into the table's row type
     * @param predicate a filter Paimon may use to skip data, or null
     * @throws IllegalStateException when not called inside a Spark task
     * @throws IOException when Paimon cannot open the split
     */
    public static GovernedTaskRead open(FileStoreTable table, Map<String, String> governance, int[] projection, Predicate predicate,
            Split split) throws IOException {
        TaskContext task = GovernedTaskWrite.currentTask();
        ResourceContext context = GovernedTaskWrite.context(task, "read", governance, null);
        GovernedTableRead read = null;
        try {
            read = GovernedTableRead.open(table, context).withProjection(projection);
            if (predicate != null) {
                read.withFilter(predicate);
            }
            GovernedTaskRead opened = new GovernedTaskRead(context, read, read.reader(split));
            task.addTaskCompletionListener((TaskCompletionListener) ended -> opened.closeQuietly());
            return opened;
        } catch (IOException | RuntimeException e) {
            if (read != null) {
                read.close();
            }
            context.close();
            throw e;
        }
    }

    @Override
    public RecordIterator<InternalRow> readBatch() throws IOException {
        return reader.readBatch();
    }

    /** Closes the split's reader, the read and its context, which gives the task's memory back. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            reader.close();
        } finally {
            try {
                read.close();
            } finally {
                context.close();
            }
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (IOException | RuntimeException e) {
            // The task ended already; its failure, if any, is Spark's to report.
        }
    }
}
