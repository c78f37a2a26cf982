package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
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
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One table write spread over several governed writes, each given the rows of its channel as an
 * engine's shuffles would ({@link WriteChannels}; dynamic buckets through assigners first),
 * committed together: the table is the model of the input and every (partition, bucket) is written
 * by one channel only.
 */
class HeapWriteChannelsTest {

    private static final int ASSIGNERS = 8;

    @TempDir Path dir;

    /**
     * Two rounds with channel counts that differ (a job run again with another parallelism): the
     * second finds every key the first wrote, in the bucket the first gave it, through the table's
     * index, whatever assigner or writer wrote it.
     */
    @ParameterizedTest(name = "bucket {0}, initial-buckets {1}, {2} then {3} channels")
    @CsvSource({"4, , 3, 2", "-1, , 3, 2", "-1, 2, 3, 3", "-1, , 1, 3", "-1, , 3, 1"})
    void everyBucketHasOneWriterAndTheTableIsTheModelWhateverTheChannels(int bucket, Integer initialBuckets, int first,
            int second) throws Exception {
        Map<String, String> options = new HashMap<>(Map.of("bucket", Integer.toString(bucket), "file.format", "parquet",
                "dynamic-bucket.target-row-num", "500"));
        if (initialBuckets != null) {
            options.put("dynamic-bucket.initial-buckets", initialBuckets.toString());
        }
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", options, true);
        Workload one = Workload.random(11, 6_000, 3_000, 3, 24);
        Workload two = Workload.random(12, 6_000, 4_000, 3, 24);

        ChannelWrites writes = new ChannelWrites(dir);
        writes.writeAndCommit(table, WriteChannels.of(table, first), one.rows(), "8m", null);
        FileStoreTable again = TestTables.open(dir.resolve("wh").toUri().toString(), "t");
        writes.writeAndCommit(again, WriteChannels.of(again, second), two.rows(), "8m", null);

        Map<List<Integer>, String> model = TestTables.emptyModel();
        one.rows().forEach(r -> TestTables.apply(model, r));
        two.rows().forEach(r -> TestTables.apply(model, r));
        assertThat(TestTables.read(table)).isEqualTo(model);
        assertThat(writes.assignersOpened).isEqualTo(bucket == -1 ? (first > 1 ? first : 0) + (second > 1 ? second : 0) : 0);
    }

    @Test
    void rowsOfAnAssignedTableComeWithTheirBucketsAndOthersWithout() throws Exception {
        FileStoreTable dynamic = TestTables.createTable(dir.resolve("wh"), "d", Map.of("bucket", "-1"), true);
        FileStoreTable fixed = TestTables.createTable(dir.resolve("wh"), "f", Map.of("bucket", "2"), true);
        InternalRow row = Workload.random(1, 1, 1, 1, 8).rows().get(0);
        WriteHarness h = new WriteHarness(dir.resolve("h"));
        try (GovernedTableWrite write = h.batch(dynamic, h.options("8m"), WriteChannels.of(dynamic, 2), false)) {
            assertThatThrownBy(() -> write.write(row)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("come with their buckets").hasMessageContaining("write(row, bucket)");
            write.write(row, 0);
            assertThat(write.prepareCommit().messages()).hasSize(1);
        }
        try (GovernedTableWrite write = h.batch(fixed, h.options("8m"), WriteChannels.of(fixed, 2), false)) {
            assertThatThrownBy(() -> write.write(row, 0)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("picks the bucket of each row itself");
            write.write(row);
        }
        ResourceContext context = ResourceContext.open("a", h.provider, h.options("8m"), EngineEnvironment.standalone());
        assertThatThrownBy(() -> GovernedAssigner.open(fixed, context, WriteChannels.of(fixed, 2), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs no assigner");
        assertThat(context.isClosed()).isTrue();
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

    /**
     * A partition whose index is larger than an assigner's budget, read by {@value #ASSIGNERS}
     * assigners whose own parts of it fit: each keeps (and pays for) its own keys only, as Paimon's
     * assigners of that many channels keep them, and the keys it did not keep come back to it.
     */
    @Test
    void eachOfManyAssignersPaysForItsOwnPartOfAPartitionsIndex() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t",
                Map.of("bucket", "-1", "dynamic-bucket.target-row-num", "20000"), true);
        Workload first = Workload.random(41, 100_000, 1_000_000, 1, 8);
        new ChannelWrites(dir).writeAndCommit(table, WriteChannels.single(table), first.rows(), "32m", null);
        long partitionKeys = first.expected().size();
        assertThat(partitionKeys * 27).as("the whole index is more than an assigner's budget").isGreaterThan(1L << 20);

        WriteChannels channels = WriteChannels.of(table, ASSIGNERS);
        WriteChannels.Router router = channels.router();
        Map<Integer, InternalRow> oneRowPerAssigner = new HashMap<>();
        first.rows().forEach(r -> oneRowPerAssigner.putIfAbsent(router.channel(r), r));
        assertThat(oneRowPerAssigner).hasSize(ASSIGNERS);
        for (int a = 0; a < ASSIGNERS; a++) {
            WriteHarness h = new WriteHarness(dir.resolve("assigner-" + a));
            ResourceContext context = ResourceContext.open("assigner-" + a, h.provider, h.options("1m"), EngineEnvironment.standalone());
            try (GovernedAssigner assigner = GovernedAssigner.open(table, context, channels, false)) {
                List<Integer> buckets = new ArrayList<>();
                assigner.assign(oneRowPerAssigner.get(a), (row, bucket) -> buckets.add(bucket));
                assertThat(buckets).hasSize(1);
                assertThat(assigner.metrics().peakReservedBytes()).isLessThanOrEqualTo(1L << 20);
            }
        }
    }

    @Test
    void aChannelCountBelowOneIsRefusedNamingIt() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "t", Map.of("bucket", "2"), true);
        assertThatThrownBy(() -> WriteChannels.of(table, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one channel");
    }
}
