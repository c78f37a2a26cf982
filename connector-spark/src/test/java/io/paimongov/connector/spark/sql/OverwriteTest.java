package io.paimongov.connector.spark.sql;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.fixtures.TableFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Appends and overwrites as Spark users write them, against a model of the table kept by
 * partition: {@code INSERT INTO}, {@code INSERT OVERWRITE ... PARTITION (d = 'x')}, {@code INSERT
 * OVERWRITE} with {@code spark.sql.sources.partitionOverwriteMode=dynamic} and without (the whole
 * table), {@code df.writeTo(..).append()}, {@code .overwritePartitions()} and {@code
 * .overwrite(condition)}; then an {@code INSERT INTO} that updates keys of an overwritten partition,
 * which must land on the overwrite's rows (for a dynamic-bucket table: in the bucket the overwrite
 * gave them, one bucket per key). Checked on a fixed-bucket and a dynamic-bucket primary-key table
 * and an append table.
 */
class OverwriteTest {

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "ow", warehouse, Map.of());
        spark.sql("CREATE DATABASE IF NOT EXISTS ow.db");
    }

    @AfterEach
    void staticMode() {
        spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    }

    static Stream<Arguments> tables() {
        return Stream.of(
                Arguments.of("fixed", "'primary-key' = 'k,d', 'bucket' = '2'", true),
                Arguments.of("dynamic", "'primary-key' = 'k,d', 'bucket' = '-1', 'dynamic-bucket.target-row-num' = '40'", true),
                Arguments.of("append", "'bucket' = '-1'", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void everyAppendAndOverwriteGivesTheModel(String name, String properties, boolean primaryKey) throws Exception {
        String t = "ow.db." + name;
        spark.sql("CREATE TABLE " + t + " (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES (" + properties + ")");
        Model model = new Model(primaryKey);

        spark.sql("INSERT INTO " + t + " SELECT CAST(id AS INT), 'a', concat('p', id % 3) FROM range(0, 600)");
        model.insert(0, 600, id -> "a", id -> "p" + id % 3);
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).isEqualTo(model.rows());

        spark.sql("INSERT OVERWRITE " + t + " PARTITION (d = 'p1') SELECT CAST(id AS INT), 'b' FROM range(1000, 1100)");
        model.clear("p1");
        model.insert(1000, 1100, id -> "b", id -> "p1");
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("static partition overwrite").isEqualTo(model.rows());

        spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
        spark.sql("INSERT OVERWRITE " + t + " SELECT CAST(id AS INT), 'c', concat('p', 2 + id % 2) FROM range(2000, 2100)");
        model.clear("p2");
        model.clear("p3");
        model.insert(2000, 2100, id -> "c", id -> "p" + (2 + id % 2));
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("dynamic partition overwrite").isEqualTo(model.rows());

        Dataset<Row> p0 = spark.sql("SELECT CAST(id AS INT) AS k, 'e' AS v, 'p0' AS d FROM range(3000, 3050)");
        p0.writeTo(t).overwritePartitions();
        model.clear("p0");
        model.insert(3000, 3050, id -> "e", id -> "p0");
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("writeTo().overwritePartitions()").isEqualTo(model.rows());

        spark.sql("SELECT CAST(id AS INT) AS k, 'f' AS v, 'p4' AS d FROM range(4000, 4030)").writeTo(t).append();
        model.insert(4000, 4030, id -> "f", id -> "p4");
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("writeTo().append()").isEqualTo(model.rows());

        spark.sql("SELECT CAST(id AS INT) AS k, 'g' AS v, 'p3' AS d FROM range(5000, 5020)").writeTo(t).overwrite(col("d").equalTo("p3"));
        model.clear("p3");
        model.insert(5000, 5020, id -> "g", id -> "p3");
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("writeTo().overwrite(d = 'p3')").isEqualTo(model.rows());

        // Updates of keys the dynamic overwrite wrote: for a primary-key table they replace its rows.
        spark.sql("INSERT INTO " + t + " SELECT CAST(id AS INT), 'h', 'p2' FROM range(2000, 2100, 2)");
        model.insert(2000, 2100, id -> id % 2 == 0 ? "h" : null, id -> "p2");
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("updates after the overwrite").isEqualTo(model.rows());

        spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
        spark.sql("INSERT OVERWRITE " + t + " SELECT CAST(id AS INT), 'z', concat('p', id % 2) FROM range(9000, 9010)");
        model.clearAll();
        model.insert(9000, 9010, id -> "z", id -> "p" + id % 2);
        assertThat(Tables.query(spark, "SELECT * FROM " + t)).as("whole-table overwrite").isEqualTo(model.rows());

        FileStoreTable table = Tables.paimon(warehouse, "db", name);
        assertThat(Tables.readPaimon(table)).isEqualTo(model.rows());
        if (primaryKey) {
            Tables.bucketsOfKeys(table, 0, 2).forEach((k, buckets) -> assertThat(buckets).as("buckets of key %s", k).hasSize(1));
        }
        assertThat(TableFiles.unreferenced(table)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void anOverwriteByANonPartitionColumnFailsNamingIt(String name, String properties, boolean primaryKey) {
        String t = "ow.db.bad_" + name;
        spark.sql("CREATE TABLE " + t + " (k INT, v STRING, d STRING) PARTITIONED BY (d) TBLPROPERTIES (" + properties + ")");
        Dataset<Row> rows = spark.sql("SELECT 1 AS k, 'x' AS v, 'p0' AS d");
        assertThatThrownBy(() -> rows.writeTo(t).overwrite(col("k").equalTo(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot overwrite db.bad_" + name + " where EqualTo(k,1)")
                .hasMessageContaining("equality on its partition columns [d]");
    }

    /** The table's rows by partition, as "k|v|d"; a primary-key table keeps one row per (k, d). */
    private static final class Model {
        private final boolean primaryKey;
        private final Map<String, Map<Integer, List<String>>> partitions = new TreeMap<>();

        Model(boolean primaryKey) {
            this.primaryKey = primaryKey;
        }

        /** Rows for ids in [from, to) with value(id) (skipped when null) in partition(id). */
        void insert(int from, int to, java.util.function.IntFunction<String> value, java.util.function.IntFunction<String> partition) {
            for (int id = from; id < to; id++) {
                String v = value.apply(id);
                if (v == null) {
                    continue;
                }
                String d = partition.apply(id);
                List<String> rows = partitions.computeIfAbsent(d, x -> new TreeMap<>()).computeIfAbsent(id, x -> new ArrayList<>());
                if (primaryKey) {
                    rows.clear();
                }
                rows.add(id + "|" + v + "|" + d);
            }
        }

        void clear(String partition) {
            partitions.remove(partition);
        }

        void clearAll() {
            partitions.clear();
        }

        List<String> rows() {
            List<String> all = new ArrayList<>();
            partitions.values().forEach(p -> p.values().forEach(all::addAll));
            all.sort(null);
            return all;
        }
    }
}
