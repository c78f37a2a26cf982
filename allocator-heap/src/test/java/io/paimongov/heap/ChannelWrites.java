package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.write.GovernedAssigner;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spi.EngineEnvironment;
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
 * One table write spread over governed writes as an engine's shuffles spread it: the rows routed by
 * {@link WriteChannels}, for dynamic-bucket and cross-partition tables first to assigners ({@link
 * GovernedAssigner}) and then, with their buckets, to the writers; each assigner and each writer on
 * its own heap context; the messages committed once, as a Flink committer or a Spark driver does.
 */
final class ChannelWrites {

    private final Path dir;
    private int round;
    /** Assigners opened over every round (each left nothing: checked). */
    int assignersOpened;

    ChannelWrites(Path dir) {
        this.dir = dir;
    }

    /**
     * Writes {@code rows} through one governed write per channel of {@code channels} (budget {@code
     * budget}) and commits their messages once, overwriting {@code overwrite} when it is not null;
     * checks that no two channels of the round wrote one (partition, bucket) and that each write and
     * assigner left nothing.
     */
    void writeAndCommit(FileStoreTable table, WriteChannels channels, List<InternalRow> rows, String budget,
            Map<String, String> overwrite) throws Exception {
        round++;
        List<List<InternalRow>> byChannel = route(channels.router(), channels.count(), rows);
        boolean assigned = channels.assignerStage();
        List<List<Integer>> bucketsByChannel = new ArrayList<>();
        if (assigned) {
            byChannel = assign(table, channels, byChannel, budget, overwrite != null, bucketsByChannel);
        }
        List<CommitMessage> messages = new ArrayList<>();
        Map<BinaryRow, Map<Integer, Integer>> owners = new HashMap<>();
        for (int c = 0; c < channels.count(); c++) {
            WriteHarness h = new WriteHarness(dir.resolve("round-" + round + "-channel-" + c));
            try (GovernedTableWrite write = h.batch(table, h.options(budget), channels, overwrite != null)) {
                List<InternalRow> mine = byChannel.get(c);
                for (int i = 0; i < mine.size(); i++) {
                    if (assigned) {
                        write.write(mine.get(i), bucketsByChannel.get(c).get(i));
                    } else {
                        write.write(mine.get(i));
                    }
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
        assignersOpened += assigned ? channels.count() : 0;
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        if (overwrite != null) {
            builder = builder.withOverwrite(overwrite);
        }
        try (BatchTableCommit commit = builder.newCommit()) {
            commit.commit(messages);
        }
    }

    private static List<List<InternalRow>> route(WriteChannels.Router router, int count, List<InternalRow> rows) {
        List<List<InternalRow>> byChannel = new ArrayList<>();
        for (int c = 0; c < count; c++) {
            byChannel.add(new ArrayList<>());
        }
        rows.forEach(r -> byChannel.get(router.channel(r)).add(r));
        return byChannel;
    }

    /**
     * Stage one: each assigner channel's rows through its own {@link GovernedAssigner}; returns the
     * assigned rows routed to their writers, and their buckets in {@code buckets} (same order).
     */
    private List<List<InternalRow>> assign(FileStoreTable table, WriteChannels channels, List<List<InternalRow>> byAssigner,
            String budget, boolean overwrite, List<List<Integer>> buckets) throws Exception {
        List<List<InternalRow>> byWriter = new ArrayList<>();
        for (int c = 0; c < channels.count(); c++) {
            byWriter.add(new ArrayList<>());
            buckets.add(new ArrayList<>());
        }
        var keys = table.createRowKeyExtractor();
        for (int a = 0; a < channels.count(); a++) {
            WriteHarness h = new WriteHarness(dir.resolve("round-" + round + "-assigner-" + a));
            ResourceContext context = ResourceContext.open("assigner-" + a, h.provider, h.options(budget), EngineEnvironment.standalone());
            try (GovernedAssigner assigner = GovernedAssigner.open(table, context, channels, overwrite)) {
                for (InternalRow row : byAssigner.get(a)) {
                    assigner.assign(row, (assigned, bucket) -> {
                        keys.setRecord(assigned);
                        int writer = channels.writerChannel(keys.partition(), bucket);
                        byWriter.get(writer).add(assigned);
                        buckets.get(writer).add(bucket);
                    });
                }
            }
            assertThat(context.snapshot().reservedBytes()).isZero();
            assertThat(h.provider.lastOpened().usedAtClose()).isZero();
            assertThat(h.spillScopes()).isEmpty();
        }
        return byWriter;
    }
}
