package io.paimongov.tck;

import java.util.Map;
import java.util.Random;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

/**
 * A compaction backlog made with Paimon's own write, outside the runtime: {@code commits}
 * write-only commits, each a sorted run in every (partition, bucket) of the workload's table, so
 * that the next governed write that flushes a bucket compacts it on the engine's compaction
 * threads (Paimon's default trigger is 5 sorted runs).
 */
final class Backlog {

    private static final int ROWS_PER_COMMIT = 400;

    private Backlog() {}

    static void fill(FileStoreTable table, Workload w, int commits) throws Exception {
        Random random = new Random(w.seed());
        BatchWriteBuilder builder = table.copy(Map.of("write-only", "true")).newBatchWriteBuilder();
        for (int commit = 0; commit < commits; commit++) {
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit committer = builder.newCommit()) {
                for (int i = 0; i < ROWS_PER_COMMIT; i++) {
                    int k = random.nextInt(w.keys());
                    write.write(GenericRow.of(i % w.partitions(), k, BinaryString.fromString("backlog-" + commit), (long) k));
                }
                committer.commit(write.prepareCommit());
            }
        }
    }
}
