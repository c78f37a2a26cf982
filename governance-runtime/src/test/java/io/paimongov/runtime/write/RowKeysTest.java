package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extractor shared by the write path and Paimon's write, on a real partitioned primary-key
 * table of the Paimon on the class path: a row looked at keeps its partition for Paimon's next
 * look at that same row, and every other row is looked at afresh.
 */
class RowKeysTest {

    @TempDir Path dir;

    @Test
    void paimonsNextLookAtTheSameRowKeepsItsPartition() throws Exception {
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table().newBatchWriteBuilder().newWrite()) {
            RowKeys keys = RowKeys.install(write);
            GenericRow row = GenericRow.of(1, 7, BinaryString.fromString("a"));
            keys.look(row);
            assertThat(keys.partition().getInt(0)).isEqualTo(7);
            // Changed after the look: a second extraction would see 8, the kept one is 7.
            row.setField(1, 8);
            keys.setRecord(row);
            assertThat(keys.partition().getInt(0)).isEqualTo(7);
            // Kept once only: the next setRecord of it, and every look, extract again.
            keys.setRecord(row);
            assertThat(keys.partition().getInt(0)).isEqualTo(8);
            row.setField(1, 9);
            keys.look(row);
            assertThat(keys.partition().getInt(0)).isEqualTo(9);
            assertThat(RowKeys.install(write)).isSameAs(keys);
        }
    }

    @Test
    void rowsLandInTheirOwnPartitionsWhateverWasLookedAtLast() throws Exception {
        FileStoreTable table = table();
        Map<Integer, Integer> model = new TreeMap<>();
        List<CommitMessage> messages = new ArrayList<>();
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newBatchWriteBuilder().newWrite()) {
            RowKeys keys = RowKeys.install(write);
            // One row object reused for every row, as engines do, looked at and then written.
            GenericRow reused = new GenericRow(3);
            for (int k = 0; k < 40; k++) {
                reused.setField(0, k);
                reused.setField(1, k % 4);
                reused.setField(2, BinaryString.fromString("v" + k));
                keys.look(reused);
                keys.partition();
                write.write(reused, keys.bucket());
                model.put(k, k % 4);
            }
            // A row written right after another one was looked at (the shared sort's drain does so).
            GenericRow looked = GenericRow.of(100, 5, BinaryString.fromString("looked"));
            keys.look(looked);
            keys.partition();
            GenericRow other = GenericRow.of(101, 6, BinaryString.fromString("other"));
            write.write(other, 0);
            model.put(101, 6);
            messages.addAll(write.prepareCommit());
        }
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        assertThat(partitionOfEachKey(table)).isEqualTo(model);
    }

    private FileStoreTable table() throws Exception {
        return KeyValueTables.create(dir, Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("p", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .partitionKeys("p")
                .primaryKey("k", "p")
                .option("bucket", "2")
                .build());
    }

    private static Map<Integer, Integer> partitionOfEachKey(FileStoreTable table) throws Exception {
        ReadBuilder rb = table.newReadBuilder();
        Map<Integer, Integer> out = new TreeMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> out.put(row.getInt(0), row.getInt(1)));
        }
        return out;
    }
}
