package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TableFiles;
import io.paimongov.spark.SparkGovernanceProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.paimon.Snapshot;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every table mode through SQL: a table made with Paimon's DDL, two {@code INSERT INTO}s of 3,000
 * and 2,000 rows (the second updating 1,000 keys of the first and, for the cross-partition table,
 * moving them to another partition), then the table read through the catalog and through Paimon's
 * own reader must equal a model folded from the inserted rows. Keyed modes must also have had one
 * writer per (partition, bucket) in each commit (level-0 files of one bucket and commit never
 * overlap in sequence numbers), the proof that rows were routed by their channel; a dynamic-bucket
 * table must hold every key in one bucket.
 */
class TableModesTest {

    private static final int FIRST = 3_000;
    private static final int SECOND_FROM = 2_000;
    private static final int SECOND_TO = 4_000;

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "modes", warehouse, Map.of("governance.memory.budget", "8m"));
        spark.sql("CREATE DATABASE IF NOT EXISTS modes.db");
    }

    static Stream<Arguments> modes() {
        return Stream.of(
                Arguments.of("fixed", "'primary-key' = 'k,d', 'bucket' = '3'", Model.PRIMARY_KEY),
                Arguments.of("dynamic", "'primary-key' = 'k,d', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '200'",
                        Model.PRIMARY_KEY),
                Arguments.of("cross_partition", "'primary-key' = 'k', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '300'",
                        Model.CROSS_PARTITION),
                Arguments.of("deletion_vectors", "'primary-key' = 'k,d', 'bucket' = '2', 'deletion-vectors.enabled' = 'true'",
                        Model.PRIMARY_KEY),
                Arguments.of("lookup_changelog", "'primary-key' = 'k,d', 'bucket' = '2', 'changelog-producer' = 'lookup'",
                        Model.PRIMARY_KEY),
                Arguments.of("postpone", "'primary-key' = 'k,d', 'bucket' = '-2'", Model.POSTPONE),
                Arguments.of("append", "'bucket' = '-1'", Model.APPEND),
                Arguments.of("bucketed_append", "'bucket' = '2', 'bucket-key' = 'k'", Model.APPEND));
    }

    enum Model { PRIMARY_KEY, CROSS_PARTITION, POSTPONE, APPEND }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void twoInsertsGiveTheModelThroughTheCatalogAndThroughPaimon(String name, String properties, Model model) throws Exception {
        spark.sql("CREATE TABLE modes.db." + name + " (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES ("
                + properties + ")");
        int moved = model == Model.CROSS_PARTITION ? 1 : 0;
        LocalSpark.metrics().reset();
        spark.sql("INSERT INTO modes.db." + name + " SELECT CAST(id AS INT), concat('r1-', id), concat('p', id % 3)"
                + " FROM range(0, " + FIRST + ")");
        spark.sql("INSERT INTO modes.db." + name + " SELECT CAST(id AS INT), concat('r2-', id), concat('p', (id + " + moved
                + ") % 3) FROM range(" + SECOND_FROM + ", " + SECOND_TO + ")");
        if (model != Model.APPEND) {
            // Keyed: each insert is spread over its 2 channels (spark.sql.shuffle.partitions), one write task each.
            LocalSpark.awaitListeners();
            assertThat(LocalSpark.metrics().resultTasksWithMemory()).as("write tasks that opened a governed write").isEqualTo(4);
        }

        FileStoreTable table = Tables.paimon(warehouse, "db", name);
        List<String> expected = expected(model);
        List<String> viaCatalog = Tables.query(spark, "SELECT * FROM modes.db." + name);
        if (model == Model.POSTPONE) {
            // Paimon reads no postpone-bucket file until a compaction moves the rows to real buckets:
            // its own read and the catalog's show nothing. The files hold every inserted row, which
            // Paimon reads unmerged from that bucket; its compaction merges them by key.
            assertThat(viaCatalog).isEmpty();
            assertThat(Tables.readPaimon(table)).isEmpty();
            ReadBuilder builder = table.newReadBuilder();
            List<DataSplit> postponed = table.newSnapshotReader().withBucket(BucketMode.POSTPONE_BUCKET).read().dataSplits();
            assertThat(Tables.read(builder, postponed)).isEqualTo(expected(Model.APPEND));
        } else {
            assertThat(viaCatalog).hasSize(expected.size()).isEqualTo(expected);
            assertThat(Tables.readPaimon(table)).isEqualTo(expected);
        }
        if (model == Model.PRIMARY_KEY || model == Model.CROSS_PARTITION) {
            assertOneWriterPerBucketAndCommit(table, 2);
        }
        if (table.bucketMode() == BucketMode.HASH_DYNAMIC || table.bucketMode() == BucketMode.KEY_DYNAMIC) {
            int[] key = model == Model.CROSS_PARTITION ? new int[] {0} : new int[] {0, 2};
            Tables.bucketsOfKeys(table, key).forEach((k, buckets) -> assertThat(buckets).as("buckets of key %s", k).hasSize(1));
        }
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references").isEmpty();
        assertThat(SparkGovernanceProvider.heldBytes()).isZero();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
    }

    /**
     * The rows the two inserts leave, as "k|v|d", from the statements' own formulas: every row for
     * an append table (and for the postpone bucket's files), the last of each key otherwise.
     */
    private static List<String> expected(Model model) {
        if (model == Model.APPEND || model == Model.POSTPONE) {
            List<String> rows = new ArrayList<>();
            for (int id = 0; id < FIRST; id++) {
                rows.add(id + "|r1-" + id + "|p" + id % 3);
            }
            for (int id = SECOND_FROM; id < SECOND_TO; id++) {
                rows.add(id + "|r2-" + id + "|p" + id % 3);
            }
            rows.sort(null);
            return rows;
        }
        int moved = model == Model.CROSS_PARTITION ? 1 : 0;
        Map<String, String> byKey = new TreeMap<>();
        for (int id = 0; id < FIRST; id++) {
            byKey.put(key(model, id, id % 3), id + "|r1-" + id + "|p" + id % 3);
        }
        for (int id = SECOND_FROM; id < SECOND_TO; id++) {
            int partition = (id + moved) % 3;
            byKey.put(key(model, id, partition), id + "|r2-" + id + "|p" + partition);
        }
        List<String> rows = new ArrayList<>(byKey.values());
        rows.sort(null);
        return rows;
    }

    private static String key(Model model, int k, int partition) {
        return model == Model.CROSS_PARTITION ? Integer.toString(k) : k + "/" + partition;
    }

    /**
     * Every (partition, bucket) of a commit was written by one task: Paimon numbers a writer's rows
     * from the bucket's last sequence number, so the level-0 files of two writers of one bucket in one
     * commit overlap in sequence numbers.
     */
    static void assertOneWriterPerBucketAndCommit(FileStoreTable table, int commits) throws IOException {
        int appends = 0;
        for (Snapshot s : table.snapshotManager().safelyGetAllSnapshots()) {
            if (s.commitKind() != Snapshot.CommitKind.APPEND) {
                continue;
            }
            appends++;
            for (Split split : table.newSnapshotReader().withSnapshot(s).withMode(ScanMode.DELTA).read().splits()) {
                DataSplit data = (DataSplit) split;
                List<DataFileMeta> files = new ArrayList<>(data.dataFiles());
                files.sort(Comparator.comparingLong(DataFileMeta::minSequenceNumber));
                for (int i = 1; i < files.size(); i++) {
                    assertThat(files.get(i).minSequenceNumber())
                            .as("snapshot %d, partition %s, bucket %d: %s after %s", s.id(), data.partition(), data.bucket(),
                                    files.get(i).fileName(), files.get(i - 1).fileName())
                            .isGreaterThan(files.get(i - 1).maxSequenceNumber());
                }
            }
        }
        assertThat(appends).as("APPEND snapshots").isEqualTo(commits);
    }
}
