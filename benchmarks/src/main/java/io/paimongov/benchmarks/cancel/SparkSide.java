package io.paimongov.benchmarks.cancel;

import io.paimongov.connector.spark.write.GovernedPaimonWriter;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.disk.IOManagerImpl;
import org.apache.paimon.io.DataOutputSerializer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.spark.SparkEnv;

/**
 * How a Spark task of {@link SparkCancel} writes its partition's rows, returning the commit
 * messages as bytes for the driver (which never commits: the job is cancelled first).
 *
 * <ul>
 *   <li>{@link #PAIMON}: plain Paimon in the shape of Paimon's own Spark writer ({@code
 *       PaimonSparkWriter} with {@code PaimonDataWrite} in paimon-spark 1.4.2): {@code
 *       newBatchWriteBuilder().newWrite()} with an {@code IOManagerImpl} over Spark's local dirs,
 *       every row written, {@code prepareCommit()}, and {@code close()} of the write and the
 *       I/O manager in a {@code finally}. Its write buffer is Paimon's heap pool of the table's
 *       {@code write-buffer-size}; Spark's memory manager never sees it, as with Paimon's writer.
 *   <li>{@link #GOVERNED}: {@code GovernedPaimonWriter.writePartition} with a budget of {@code
 *       governance.memory.budget} = the same bytes, taken from Spark's task memory.
 * </ul>
 *
 * <p>Runs on a Spark task thread; the enum constants are what the task's closure carries.
 */
enum SparkSide {
    PAIMON("paimon") {
        @Override
        byte[] writePartition(Iterator<InternalRow> rows, String tableLocation, long memoryBytes) throws Exception {
            FileStoreTable table = GovernedPaimonWriter.load(tableLocation);
            IOManager io = new IOManagerImpl(SparkEnv.get().blockManager().diskBlockManager().localDirsString());
            BatchTableWrite write = table.newBatchWriteBuilder().newWrite();
            write.withIOManager(io);
            try {
                while (rows.hasNext()) {
                    write.write(rows.next());
                }
                return serialize(write.prepareCommit());
            } finally {
                try {
                    write.close();
                } finally {
                    io.close();
                }
            }
        }
    },
    GOVERNED("governed") {
        @Override
        byte[] writePartition(Iterator<InternalRow> rows, String tableLocation, long memoryBytes) throws Exception {
            return GovernedPaimonWriter.writePartition(rows, tableLocation, Map.of("governance.memory.budget", Long.toString(memoryBytes)));
        }
    };

    private final String key;

    SparkSide(String key) {
        this.key = key;
    }

    /** The side's name in progress lines and reports. */
    String key() {
        return key;
    }

    /**
     * Writes {@code rows} to the table at {@code tableLocation} inside the current task.
     *
     * @param memoryBytes the write's memory: Paimon's write buffer, or the governed budget
     */
    abstract byte[] writePartition(Iterator<InternalRow> rows, String tableLocation, long memoryBytes) throws Exception;

    private static byte[] serialize(List<CommitMessage> messages) throws Exception {
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(serializer.getVersion());
        serializer.serializeList(messages, out);
        return out.getCopyOfBuffer();
    }
}
