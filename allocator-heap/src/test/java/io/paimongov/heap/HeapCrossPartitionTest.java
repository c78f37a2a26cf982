package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.UnsupportedTableModeException;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spi.ResourceExhaustedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Cross-partition update tables (primary key {@code k}, partitioned by {@code p}, {@code bucket =
 * -1}) through governed writes spread over channels: a key lives in one partition at a time, the one
 * of its last upsert, with its last value (Paimon's default merge engine retracts the old row), a
 * delete removes it wherever it lives; a second write finds the keys of the first through the index
 * it bootstraps from the table. The model is the input folded by key.
 */
class HeapCrossPartitionTest {

    @TempDir Path dir;

    private FileStoreTable createTable(String name, Map<String, String> options) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(dir.resolve("wh").toUri().toString())))) {
            catalog.createDatabase("db", true);
            Schema schema = Schema.newBuilder()
                    .column("p", DataTypes.INT().notNull()).column("k", DataTypes.INT().notNull()).column("v", DataTypes.STRING())
                    .partitionKeys("p").primaryKey("k").option("bucket", "-1").options(options).build();
            catalog.createTable(Identifier.create("db", name), schema, false);
            return (FileStoreTable) catalog.getTable(Identifier.create("db", name));
        }
    }

    /** Upserts of keys that wander between 3 partitions, and deletes (of the key in any partition). */
    private static List<InternalRow> rows(long seed, int count, int keys) {
        Random random = new Random(seed);
        List<InternalRow> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int p = random.nextInt(3);
            int k = random.nextInt(keys);
            if (random.nextInt(10) == 0) {
                rows.add(GenericRow.ofKind(RowKind.DELETE, p, k, null));
            } else {
                rows.add(GenericRow.of(p, k, BinaryString.fromString(seed + "/" + i)));
            }
        }
        return rows;
    }

    /** The rows folded by key: key -> (partition, value) of its last upsert, absent after a delete. */
    private static Map<List<Integer>, String> model(List<List<InternalRow>> rounds) {
        Map<Integer, List<Object>> byKey = new TreeMap<>();
        for (List<InternalRow> round : rounds) {
            for (InternalRow r : round) {
                if (r.getRowKind() == RowKind.DELETE) {
                    byKey.remove(r.getInt(1));
                } else {
                    byKey.put(r.getInt(1), List.of(r.getInt(0), r.getString(2).toString()));
                }
            }
        }
        Map<List<Integer>, String> content = TestTables.emptyModel();
        byKey.forEach((k, pv) -> content.put(List.of((Integer) pv.get(0), k), (String) pv.get(1)));
        return content;
    }

    /** Rounds of different channel counts: each finds the keys of the one before through the index it bootstraps. */
    @ParameterizedTest(name = "{0} then {1} channels")
    @CsvSource({"1, 1", "1, 3", "3, 2", "2, 1"})
    void keysMoveBetweenPartitionsAndTheNextWriteFindsThemInTheIndex(int first, int second) throws Exception {
        FileStoreTable table = createTable("cross", Map.of("dynamic-bucket.target-row-num", "300"));
        assertThat(WriteChannels.of(table, first).assigners()).isEqualTo(first);
        List<InternalRow> one = rows(1, 5_000, 1_500);
        List<InternalRow> two = rows(2, 5_000, 2_000);

        ChannelWrites writes = new ChannelWrites(dir);
        writes.writeAndCommit(table, WriteChannels.of(table, first), one, "16m", null);
        assertThat(TestTables.read(table)).isEqualTo(model(List.of(one)));
        writes.writeAndCommit(table, WriteChannels.of(table, second), two, "16m", null);
        assertThat(TestTables.read(table)).isEqualTo(model(List.of(one, two)));
    }

    @Test
    void theIndexIsChargedWhileTheWriteRunsAndItsRocksDbLivesInTheSpillScope() throws Exception {
        FileStoreTable table = createTable("cross", Map.of());
        WriteHarness h = new WriteHarness(dir.resolve("h"));
        List<InternalRow> rows = rows(3, 2_000, 500);
        try (GovernedTableWrite write = h.batchWriting(table, h.options("32m"), rows)) {
            long charged = h.context.holders().stream().filter(x -> x.name().equals("cross-partition index"))
                    .mapToLong(ResourceExhaustedException.Holder::bytes).sum();
            assertThat(charged).as("the index's reservation while the write runs").isPositive();
            List<Path> rocksDirs;
            try (Stream<Path> files = Files.walk(h.spillRoot)) {
                rocksDirs = files.filter(p -> p.getFileName().toString().startsWith("rocksdb-")).toList();
            }
            assertThat(rocksDirs).as("RocksDB directories under the spill root").hasSize(1);
            write.prepareCommit().commit();
        }
        assertThat(h.context.snapshot().reservedBytes()).isZero();
        assertThat(h.provider.lastOpened().usedAtClose()).isZero();
        assertThat(h.spillScopes()).isEmpty();
        assertThat(TestTables.read(table)).isEqualTo(model(List.of(rows)));
    }

    @Test
    void aBudgetTooSmallForTheIndexFailsTypedNamingItAndLeavesNothing() throws Exception {
        FileStoreTable table = createTable("cross", Map.of());
        WriteHarness h = new WriteHarness(dir.resolve("h"));
        assertThatThrownBy(() -> h.writeAndCommit(table, h.options("4m", "governance.memory.page-size", "16k"), rows(4, 100, 50)))
                .isInstanceOfSatisfying(ResourceExhaustedException.class,
                        e -> assertThat(e.requester()).startsWith("cross-partition index (assigner 0"));
        h.assertNothingLeft(table);
    }

    @Test
    void anOverwriteIsRefusedNamingTheTable() throws Exception {
        FileStoreTable table = createTable("cross", Map.of());
        WriteHarness h = new WriteHarness(dir.resolve("h"));
        assertThatThrownBy(() -> h.batch(table, h.options("16m"), WriteChannels.single(table), true))
                .isInstanceOfSatisfying(UnsupportedTableModeException.class, e -> {
                    assertThat(e.table()).isEqualTo("db.cross");
                    assertThat(e.getMessage()).contains("overwrite of a cross-partition update table");
                });
        assertThat(h.spillScopes()).isEmpty();
    }
}
