package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.connector.spark.LocalSpark;
import io.paimongov.connector.spark.SparkLines;
import io.paimongov.spark.SparkGovernanceProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL scan of a primary-key table of {@value #RUNS} overlapping sorted runs (one INSERT each, the
 * table {@code write-only}), whose readers hold far more than the 2 MiB budget: each read task takes
 * its memory from Spark's task memory manager (Spark's own {@code peakOnHeapExecutionMemory} of the
 * task is above 0 and within the budget, where the Spark line keeps it), merges in passes through
 * spill files (Spark's {@code diskBytesSpilled} above 0), gives everything back, leaves no spill
 * scope, and returns the model's rows: for each key the value of the last INSERT that wrote it.
 */
class GovernedReadTest {

    private static final long BUDGET = 2L << 20;
    private static final int RUNS = 12;
    private static final int KEYS = 1_000;

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "rd", warehouse, Map.of("governance.memory.budget", Long.toString(BUDGET)));
        spark.sql("CREATE DATABASE IF NOT EXISTS rd.db");
    }

    @Test
    void aScanOfManyRunsMergesInPassesInSparkTaskMemoryAndGivesTheModel() {
        spark.sql("CREATE TABLE rd.db.runs (k INT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1',"
                + " 'file.format' = 'parquet', 'write-only' = 'true')");
        for (int i = 0; i < RUNS; i++) {
            spark.sql("INSERT INTO rd.db.runs SELECT CAST(id AS INT), concat('r" + i + "-', id, '-', repeat('x', 1000))"
                    + " FROM range(0, " + KEYS + ") WHERE (id * 7 + " + i + ") % 3 = 0");
        }
        LocalSpark.awaitListeners();
        LocalSpark.metrics().reset();
        List<String> rows = Tables.query(spark, "SELECT * FROM rd.db.runs");
        LocalSpark.awaitListeners();
        LocalSpark.Metrics metrics = LocalSpark.metrics();

        assertThat(metrics.diskBytesSpilled()).as("diskBytesSpilled of the read tasks: a merge in passes").isPositive();
        if (SparkLines.PEAK_ON_HEAP) { // Spark 3.5 keeps no task peak of its memory manager
            assertThat(metrics.peakOnHeapExecutionMemory()).as("a read task's peak in Spark's memory manager")
                    .isPositive().isLessThanOrEqualTo(BUDGET);
        }
        assertThat(metrics.peakExecutionMemory()).as("peakExecutionMemory the reads reported").isPositive();
        assertThat(SparkGovernanceProvider.heldBytes()).isZero();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();
        assertThat(rows).isEqualTo(model());
    }

    /** Each key's row: the last INSERT {@code i} with {@code (7k + i) % 3 == 0} wrote it. */
    private static List<String> model() {
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            for (int i = RUNS - 1; i >= 0; i--) {
                if ((k * 7 + i) % 3 == 0) {
                    expected.add(k + "|r" + i + "-" + k + "-" + "x".repeat(1000));
                    break;
                }
            }
        }
        expected.sort(null);
        return expected;
    }
}
