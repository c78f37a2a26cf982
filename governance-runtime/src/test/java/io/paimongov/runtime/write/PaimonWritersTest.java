package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing one writer of a Paimon write early and reopening it, on a real primary-key table of the
 * Paimon on the class path: the reopened writer's rows must win over the ones it wrote before it was
 * closed (its sequence numbers continue), and its earlier files stay in the table.
 */
class PaimonWritersTest {

    @TempDir Path dir;

    @Test
    void aWriterClosedEarlyAndReopenedContinuesItsSequence() throws Exception {
        FileStoreTable table = table();
        Map<Integer, String> model = new TreeMap<>();
        List<CommitMessage> messages = new ArrayList<>();
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            AbstractFileStoreWrite<?> files = (AbstractFileStoreWrite<?>) write.getWrite();
            for (int k = 0; k < 100; k++) {
                write(write, model, k, "first-" + k);
            }
            BinaryRow partition = BinaryRow.EMPTY_ROW;
            assertThat(PaimonWriters.isOpen(files, partition, 0)).isTrue();

            PaimonWriters.Closed closed = PaimonWriters.close(files, partition, 0);
            messages.add(closed.message());
            assertThat(closed.newFiles()).isEqualTo(1);
            assertThat(PaimonWriters.isOpen(files, partition, 0)).isFalse();
            assertThat(files.writers()).isEmpty();

            PaimonWriters.reopen(files, closed);
            assertThat(PaimonWriters.isOpen(files, partition, 0)).isTrue();
            for (int k = 0; k < 100; k += 3) {
                write(write, model, k, "second-" + k);
            }
            messages.addAll(write.prepareCommit());
        }
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        assertThat(read(table)).isEqualTo(model);
    }

    @Test
    void closingAWriterThatIsNotOpenNamesIt() throws Exception {
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table().newBatchWriteBuilder().newWrite()) {
            assertThatThrownBy(() -> PaimonWriters.close((AbstractFileStoreWrite<?>) write.getWrite(), BinaryRow.EMPTY_ROW, 3))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bucket 3");
        }
    }

    private static void write(TableWriteImpl<?> write, Map<Integer, String> model, int k, String v) throws Exception {
        write.write(GenericRow.of(k, BinaryString.fromString(v)), 0);
        model.put(k, v);
    }

    private FileStoreTable table() throws Exception {
        return KeyValueTables.create(dir, KeyValueTables.oneBucketKeyValue().build());
    }

    private static Map<Integer, String> read(FileStoreTable table) throws Exception {
        return KeyValueTables.read(table, 1);
    }
}
