package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One table write spread over several governed writes, each given the rows of its channel as an
 * engine's shuffle would ({@link WriteChannels}), committed together: the table is the model of the
 * input, every (partition, bucket) is written by one channel only, and dynamic buckets are owned as
 * {@link WriteChannels#ownsBucket} says (Paimon's rule where assigners and channels are as many), so
 * a second write finds every key in the bucket the first one gave it.
 */
class HeapWriteChannelsTest {

    @TempDir Path dir;

    @ParameterizedTest(name = "bucket {0}, initial-buckets {1}, {2} channels")
    @CsvSource({"4, , 3", "-1, , 3", "-1, 2, 3", "-1, , 1"})
    void channelsOwnWholeBucketsAndTheTableIsTheModel(int bucket, Integer initialBuckets, int count) throws Exception {
        Map<String, String> options = new HashMap<>(Map.of("bucket", Integer.toString(bucket), "file.format", "parquet",
                "dynamic-bucket.target-row-num", "500"));
        if (initialBuckets != null) {
            options.put("dynamic-bucket.initial-buckets", initialBuckets.toString());
        }
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options, true);
        WriteChannels channels = WriteChannels.of(table, count);
        Workload first = Workload.random(11, 6_000, 3_000, 3, 24);
        Workload second = Workload.random(12, 6_000, 4_000, 3, 24);

        Map<BinaryRow, Map<Integer, Integer>> owners = new HashMap<>();
        commit(table, writeChannels(table, channels, first.rows(), false, owners), null);
        commit(TestTables.open(dir.resolve("wh").toUri().toString(), "t"),
                writeChannels(table, channels, second.rows(), false, owners), null);

        Map<List<Integer>, String> model = TestTables.emptyModel();
        first.rows().forEach(r -> TestTables.apply(model, r));
        second.rows().forEach(r -> TestTables.apply(model, r));
        assertThat(TestTables.read(table)).isEqualTo(model);
        if (bucket == -1) {
            int assigners = channels.assigners();
            assertThat(assigners).isEqualTo(initialBuckets == null ? count : Math.min(initialBuckets, count));
            owners.forEach((partition, byBucket) -> byBucket.forEach((b, channel) -> {
                int expected = assigners == count ? channel % assigners
                        : Math.floorMod(channel - Math.abs(partition.hashCode() % count), count);
                assertThat(b % assigners).as("bucket %s written by channel %s", b, channel).isEqualTo(expected);
            }));
        }
    }

    @Test
    void anOverwriteOfADynamicBucketTableStartsFromEmptyIndexes() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t",
                Map.of("bucket", "-1", "dynamic-bucket.target-row-num", "200"), true);
        WriteChannels channels = WriteChannels.of(table, 2);
        Workload first = Workload.random(21, 4_000, 2_000, 3, 16);
        commit(table, writeChannels(table, channels, first.rows(), false, new HashMap<>()), null);

        List<InternalRow> partitionOne = Workload.random(22, 1_000, 300, 3, 16).rows().stream()
                .filter(r -> r.getInt(0) == 1).toList();
        commit(table, writeChannels(table, channels, partitionOne, true, new HashMap<>()), Map.of("p", "1"));

        Map<List<Integer>, String> model = TestTables.emptyModel();
        first.rows().stream().filter(r -> r.getInt(0) != 1).forEach(r -> TestTables.apply(model, r));
        partitionOne.forEach(r -> TestTables.apply(model, r));
        assertThat(TestTables.read(table)).isEqualTo(model);
    }

    @Test
    void aChannelCountBelowOneIsRefusedNamingIt() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "2"), true);
        assertThatThrownBy(() -> WriteChannels.of(table, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one channel");
    }

    /**
     * Routes {@code rows} to {@code channels}, writes each channel's rows through its own governed
     * write and returns every message; records which channel wrote each (partition, bucket) in
     * {@code owners} and checks no two channels share one.
     */
    private List<CommitMessage> writeChannels(FileStoreTable table, WriteChannels channels, List<InternalRow> rows,
            boolean overwrite, Map<BinaryRow, Map<Integer, Integer>> owners) throws Exception {
        List<List<InternalRow>> byChannel = new ArrayList<>();
        for (int c = 0; c < channels.count(); c++) {
            byChannel.add(new ArrayList<>());
        }
        WriteChannels.Router router = channels.router();
        rows.forEach(r -> byChannel.get(router.channel(r)).add(r));
        List<CommitMessage> messages = new ArrayList<>();
        for (int c = 0; c < channels.count(); c++) {
            WriteHarness h = new WriteHarness(dir.resolve("channel-" + c + "-" + System.nanoTime()));
            try (GovernedTableWrite write = h.batch(table, h.options("8m"), channels, overwrite)) {
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
        return messages;
    }

    private static void commit(FileStoreTable table, List<CommitMessage> messages, Map<String, String> overwrite) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        if (overwrite != null) {
            builder = builder.withOverwrite(overwrite);
        }
        try (BatchTableCommit commit = builder.newCommit()) {
            commit.commit(messages);
        }
    }
}
