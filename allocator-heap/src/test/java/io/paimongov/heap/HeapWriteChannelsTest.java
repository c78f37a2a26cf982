package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.write.WriteChannels;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
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

        ChannelWrites writes = new ChannelWrites(dir);
        writes.writeAndCommit(table, channels, first.rows(), "8m", null);
        writes.writeAndCommit(TestTables.open(dir.resolve("wh").toUri().toString(), "t"), channels, second.rows(), "8m", null);

        Map<List<Integer>, String> model = TestTables.emptyModel();
        first.rows().forEach(r -> TestTables.apply(model, r));
        second.rows().forEach(r -> TestTables.apply(model, r));
        assertThat(TestTables.read(table)).isEqualTo(model);
        if (bucket == -1) {
            int assigners = channels.assigners();
            assertThat(assigners).isEqualTo(initialBuckets == null ? count : Math.min(initialBuckets, count));
            writes.owners.forEach((partition, byBucket) -> byBucket.forEach((b, channel) -> {
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
        ChannelWrites writes = new ChannelWrites(dir);
        writes.writeAndCommit(table, channels, first.rows(), "8m", null);

        List<InternalRow> partitionOne = Workload.random(22, 1_000, 300, 3, 16).rows().stream()
                .filter(r -> r.getInt(0) == 1).toList();
        writes.writeAndCommit(table, channels, partitionOne, "8m", Map.of("p", "1"));

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
}
