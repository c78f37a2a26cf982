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
 * A governed SQL write whose budget is much smaller than its data: every write task takes its
 * memory from Spark's task memory manager (Spark's own {@code peakOnHeapExecutionMemory} of each
 * task is above 0 and within the 2 MiB budget), spills to disk (Spark's {@code diskBytesSpilled}
 * above 0), reports its peak ({@code peakExecutionMemory}), gives everything back and leaves no spill
 * scope; and the table holds exactly the rows written. Sizes: {@code
 * governance.test.spark.sql-rows} rows (default 100,000) of about 100 bytes.
 */
class GovernedMemoryTest {

    private static final long BUDGET = 2L << 20;
    private static final int ROWS = Integer.getInteger("governance.test.spark.sql-rows", 100_000);

    @TempDir static Path warehouse;
    private static SparkSession spark;

    @BeforeAll
    static void catalog() {
        spark = LocalSpark.session(LocalSpark.LOCAL_2);
        Tables.register(spark, "mem", warehouse, Map.of("governance.memory.budget", Long.toString(BUDGET),
                "governance.memory.page-size", "16k"));
        spark.sql("CREATE DATABASE IF NOT EXISTS mem.db");
    }

    @Test
    void aWriteOverItsBudgetSpillsInSparkTaskMemoryAndGivesTheModel() {
        spark.sql("CREATE TABLE mem.db.big (k INT, v STRING, d STRING) PARTITIONED BY (d)"
                + " TBLPROPERTIES ('primary-key' = 'k,d', 'bucket' = '2', 'file.format' = 'parquet')");
        LocalSpark.metrics().reset();
        spark.sql("INSERT INTO mem.db.big SELECT CAST(id AS INT), concat('v-', id, '-', repeat('x', 80)), concat('p', id % 3)"
                + " FROM range(0, " + ROWS + ")");
        LocalSpark.awaitListeners();
        LocalSpark.Metrics metrics = LocalSpark.metrics();
        System.err.printf("governed SQL write of %d rows, budget %d: diskBytesSpilled=%d memoryBytesSpilled=%d"
                        + " peakOnHeapExecutionMemory=%d peakExecutionMemory=%d%n", ROWS, BUDGET, metrics.diskBytesSpilled(),
                metrics.memoryBytesSpilled(), metrics.peakOnHeapExecutionMemory(), metrics.peakExecutionMemory());

        assertThat(metrics.diskBytesSpilled()).as("diskBytesSpilled of the write tasks").isPositive();
        if (SparkLines.PEAK_ON_HEAP) { // Spark 3.5 keeps no task peak of its memory manager
            assertThat(metrics.peakOnHeapExecutionMemory()).as("a write task's peak in Spark's memory manager")
                    .isPositive().isLessThanOrEqualTo(BUDGET);
        }
        assertThat(metrics.peakExecutionMemory()).as("peakExecutionMemory the writes reported").isPositive();
        assertThat(SparkGovernanceProvider.heldBytes()).isZero();
        assertThat(LocalSpark.spillScopesInSparkLocalDirs()).isEmpty();

        List<String> expected = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            expected.add(id + "|v-" + id + "-" + "x".repeat(80) + "|p" + id % 3);
        }
        expected.sort(null);
        assertThat(Tables.query(spark, "SELECT * FROM mem.db.big")).isEqualTo(expected);
    }
}
