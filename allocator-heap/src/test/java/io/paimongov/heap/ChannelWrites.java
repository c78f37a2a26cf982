package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.WriteChannels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * One table write spread over governed writes as an engine's shuffle spreads it: the rows routed by
 * {@link WriteChannels}, each channel written by its own write on its own heap context, the
 * messages committed once, as a Flink committer or a Spark driver does.
 */
final class ChannelWrites {

    /** Which channel wrote each (partition, bucket), over every round of one test. */
    final Map<BinaryRow, Map<Integer, Integer>> owners = new HashMap<>();
    private final Path dir;
    private int round;

    ChannelWrites(Path dir) {
        this.dir = dir;
    }

    /**
     * Writes {@code rows} through one governed write per channel of {@code channels} (budget {@code
     * budget}) and commits their messages once, overwriting {@code overwrite} when it is not null;
     * checks that no two channels wrote one (partition, bucket) and that each write left nothing.
     */
    void writeAndCommit(FileStoreTable table, WriteChannels channels, List<InternalRow> rows, String budget,
            Map<String, String> overwrite) throws Exception {
        List<List<InternalRow>> byChannel = new ArrayList<>();
        for (int c = 0; c < channels.count(); c++) {
            byChannel.add(new ArrayList<>());
        }
        WriteChannels.Router router = channels.router();
        rows.forEach(r -> byChannel.get(router.channel(r)).add(r));
        List<CommitMessage> messages = new ArrayList<>();
        round++;
        for (int c = 0; c < channels.count(); c++) {
            WriteHarness h = new WriteHarness(dir.resolve("round-" + round + "-channel-" + c));
            try (GovernedTableWrite write = h.batch(table, h.options(budget), channels, overwrite != null)) {
                for (InternalRow row : byChannel.get(c)) {
                    write.write(row);
                }
                for (CommitMessage m : write.prepareCommit().handOff()) {
                    Integer before = owners.computeIfAbsent(m.partition().copy(), p -> new HashMap<>()).putIfAbsent(m.bucket(), c);
                    assertThat(before).as("owner of partition %s bucket %s", m.partition(), m.bucket()).isIn(null, c);
                    messages.add(m);
                }
            }
            assertThat(h.context.snapshot().reservedBytes()).isZero();
            assertThat(h.provider.lastOpened().usedAtClose()).isZero();
            assertThat(h.spillScopes()).isEmpty();
        }
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        if (overwrite != null) {
            builder = builder.withOverwrite(overwrite);
        }
        try (BatchTableCommit commit = builder.newCommit()) {
            commit.commit(messages);
        }
    }
}
